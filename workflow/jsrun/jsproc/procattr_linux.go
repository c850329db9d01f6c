package jsproc

import "syscall"

// procAttr makes a worker get SIGKILL when the thread that started it
// ends (see spawner).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
