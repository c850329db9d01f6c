package jsproc

import "syscall"

// procAttr makes a worker get SIGKILL when the thread that started it
// ends (see spawner).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// lowerThreadPriority raises the calling thread's nice value (on Linux a
// thread's own); the processes it starts inherit it. Failing leaves the
// priority as it was.
func lowerThreadPriority(nice int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}
