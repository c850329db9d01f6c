//go:build !linux

package jsproc

import "syscall"

// procAttr is empty where there is no Pdeathsig: workers then end when
// the pool closes their stdin, or when they are killed.
func procAttr() *syscall.SysProcAttr { return nil }

// lowerThreadPriority does nothing where nice values are not per thread.
func lowerThreadPriority(int) {}
