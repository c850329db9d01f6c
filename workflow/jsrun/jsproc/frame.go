package jsproc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// The protocol between the pool and a worker: frames on the worker's
// stdin and stdout, each a 4-byte big-endian length and that many bytes of
// JSON. The pool first sends a hello (the limits); then, one at a time, a
// request, answered by one response.

// hello carries the limits a worker applies to itself before it runs
// anything.
type hello struct {
	Memory     int64 `json:"memory"`      // bytes of heap one run may grow by (the watch)
	HardMemory int64 `json:"hard_memory"` // bytes of data the process may map (RLIMIT_DATA)
	MaxStack   int   `json:"max_stack"`
	MaxLogs    int   `json:"max_logs"`
	MaxFrame   int   `json:"max_frame"` // bytes of a response
}

// request asks for one run.
type request struct {
	Code      string         `json:"code"`
	Params    map[string]any `json:"params,omitempty"`
	TimeoutMS int64          `json:"timeout_ms"`
}

// Kinds of errors a response carries, besides the code's own.
const (
	kindTimeout = "timeout"
	kindMemory  = "memory"
	kindBusy    = "busy"
)

// response is the outcome of one run.
type response struct {
	Value any    `json:"value,omitempty"`
	Logs  string `json:"logs,omitempty"`
	Error string `json:"error,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

// errFrameTooLarge reports a frame longer than the reader accepts.
type errFrameTooLarge struct{ n, max int }

func (e errFrameTooLarge) Error() string {
	return fmt.Sprintf("a frame of %d bytes is over the limit of %d", e.n, e.max)
}

// encodeFrame returns v as a frame.
func encodeFrame(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(out, uint32(len(body)))
	return append(out, body...), nil
}

// writeFrame writes v as one frame.
func writeFrame(w io.Writer, v any) error {
	b, err := encodeFrame(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// readFrame reads one frame of at most max bytes into v, numbers as
// json.Number (as a run in-process returns them). A longer frame is not
// read: errFrameTooLarge.
func readFrame(r io.Reader, max int, v any) error {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	n := int(binary.BigEndian.Uint32(head[:]))
	if n > max {
		return errFrameTooLarge{n: n, max: max}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return dec.Decode(v)
}
