//go:build !linux

package procnice

import "syscall"

// Process sets the nice value of process pid, where a nice value is a
// process's.
func Process(pid, nice int) error { return syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice) }

// Tree sets the nice value of process pid only: its descendants are not
// found where there is no /proc.
func Tree(pid, nice int) error { return Process(pid, nice) }

// Descendants returns pid alone where there is no /proc.
func Descendants(pid int) []int { return []int{pid} }

// Nice returns the nice value of process pid.
func Nice(pid int) (int, error) {
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, pid)
	return p, err
}

// Tasks returns pid alone where there is no /proc.
func Tasks(pid int) []int { return []int{pid} }
