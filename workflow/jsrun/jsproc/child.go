package jsproc

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/pergola-ai/pergola/workflow/jsrun"
)

// Serve is a worker's side of the protocol: the entry point of the hidden
// sub-command a pool starts (pergola coderun). It reads the limits from
// in, applies them to this process (a hard limit on its data mappings, so
// code that outgrows it kills the process and nothing else; a soft limit
// for the garbage collector), then answers requests one at a time until in
// ends. Each run gets a fresh VM; compiled programs are kept by a hash of
// their code.
func Serve(in io.Reader, out io.Writer) error {
	rd, wr := bufio.NewReader(in), bufio.NewWriter(out)
	var h hello
	if err := readFrame(rd, 1<<10, &h); err != nil {
		return fmt.Errorf("coderun: reading the limits: %w", err)
	}
	if err := limitProcess(h.HardMemory); err != nil {
		return fmt.Errorf("coderun: %w", err)
	}
	s := &server{h: h, runner: jsrun.NewRunner(jsrun.Limits{Memory: h.Memory, MaxStack: h.MaxStack, MaxLogs: h.MaxLogs,
		Concurrency: 1}), progs: map[[32]byte]*jsrun.Program{}}
	for {
		var req request
		if err := readFrame(rd, 1<<30, &req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("coderun: reading a request: %w", err)
		}
		if err := s.answer(wr, req); err != nil {
			return fmt.Errorf("coderun: writing a response: %w", err)
		}
	}
}

// limitProcess sets this process's hard limit on data mappings (Linux
// counts the private writable ones: the Go heap once mapped, not its
// address-space reservations) and the garbage collector's soft limit a
// quarter below it, so collections work harder before the hard limit
// ends the process. Race-detector builds get only the soft limit.
func limitProcess(hard int64) error {
	if hard <= 0 {
		return errors.New("no memory limit was given")
	}
	debug.SetMemoryLimit(hard - hard/4)
	if raceBuild {
		return nil
	}
	lim := syscall.Rlimit{Cur: uint64(hard), Max: uint64(hard)}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		return fmt.Errorf("setting RLIMIT_DATA: %w", err)
	}
	return nil
}

// server answers the requests of one worker.
type server struct {
	h      hello
	runner *jsrun.Runner
	progs  map[[32]byte]*jsrun.Program
}

// maxPrograms bounds the compiled programs a worker keeps.
const maxPrograms = 256

// answer runs one request and writes its response.
func (s *server) answer(w *bufio.Writer, req request) error {
	b, err := encodeFrame(s.run(req))
	if err == nil && len(b)-4 > s.h.MaxFrame {
		b, err = encodeFrame(response{Error: fmt.Sprintf("main returned %d bytes with its logs, over the %d a code node may return",
			len(b)-4, s.h.MaxFrame)})
	}
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	return w.Flush()
}

// run compiles (or reuses) the request's program and runs it.
func (s *server) run(req request) response {
	p, err := s.program(req.Code)
	if err != nil {
		return response{Error: err.Error()}
	}
	res, err := s.runner.Run(context.Background(), p, req.Params, time.Duration(req.TimeoutMS)*time.Millisecond)
	out := response{Value: res.Value, Logs: res.Logs}
	switch {
	case errors.Is(err, jsrun.ErrTimeout):
		out.Kind = kindTimeout
	case errors.Is(err, jsrun.ErrMemory):
		out.Kind = kindMemory
	case errors.Is(err, jsrun.ErrBusy):
		out.Kind = kindBusy
	case err != nil:
		out.Error = err.Error()
	}
	if out.Kind != "" || out.Error != "" {
		out.Value = nil
	}
	return out
}

// program returns code compiled, from the cache when it was compiled
// before.
func (s *server) program(code string) (*jsrun.Program, error) {
	key := sha256.Sum256([]byte(code))
	if p, ok := s.progs[key]; ok {
		return p, nil
	}
	p, err := jsrun.Compile(code)
	if err != nil {
		return nil, err
	}
	if len(s.progs) >= maxPrograms {
		clear(s.progs)
	}
	s.progs[key] = p
	return p, nil
}
