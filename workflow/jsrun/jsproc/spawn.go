package jsproc

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
)

// errClosed is returned by a pool, or its spawner, after Close.
var errClosed = errors.New("the code runner is shut down")

// spawner starts worker processes from one goroutine locked to its OS
// thread for the pool's whole life. On Linux a worker gets SIGKILL when
// the thread that started it ends (Pdeathsig): the Go runtime may end an
// idle thread, but never one a goroutine is locked to, so workers die
// with the server and not before. Closing the spawner ends that thread,
// which kills every worker still running.
//
// The thread's nice value, when raised, is what every worker starts with:
// code that computes for long then yields the CPU to the server's own
// work (requests, storage) and to runs that wake up.
type spawner struct {
	nice   int
	mu     sync.Mutex
	reqs   chan spawnReq
	closed bool
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

func newSpawner(nice int) *spawner {
	s := &spawner{reqs: make(chan spawnReq), nice: nice}
	go s.loop()
	return s
}

// loop starts the commands asked for until the spawner is closed, then
// returns still locked, so the runtime ends its thread.
func (s *spawner) loop() {
	runtime.LockOSThread()
	if s.nice > 0 {
		lowerThreadPriority(s.nice)
	}
	for r := range s.reqs {
		r.done <- r.cmd.Start()
	}
}

// start starts cmd on the spawner's thread. Errors: cmd.Start's, or
// errClosed.
func (s *spawner) start(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	s.reqs <- spawnReq{cmd: cmd, done: done}
	s.mu.Unlock()
	return <-done
}

// close ends the spawner's thread.
func (s *spawner) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.reqs)
	}
}
