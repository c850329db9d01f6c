package main

import (
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// answer is what the callback server saw of one event.
type answer struct {
	first time.Time
	count int
	text  string
}

// sink is the system's callback_url: it checks each answer's signature
// and records the answers per event id.
type sink struct {
	secret string
	mu     sync.Mutex
	got    map[string]*answer
	bad    map[string]int
	done   chan struct{}
}

func newSink(secret string) *sink {
	return &sink{secret: secret, got: map[string]*answer{}, bad: map[string]int{}, done: make(chan struct{}, 1)}
}

// ServeHTTP records one signed answer and answers 204.
func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	var a struct {
		EventID string `json:"event_id"`
		ChatID  string `json:"chat_id"`
		Text    string `json:"text"`
	}
	err := json.Unmarshal(body, &a)
	if err == nil {
		err = s.verify(r.Header.Get("X-Pergola-Signature"), body)
	}
	s.record(a.EventID, a.Text, at, err)
	w.WriteHeader(http.StatusNoContent)
}

// verify checks the answer is signed with the channel's secret.
func (s *sink) verify(header string, body []byte) error {
	var ts, v1 string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	if ts == "" || !hmac.Equal([]byte(v1), []byte(mac(s.secret, ts, body))) {
		return fmt.Errorf("callback with a bad signature %q", header)
	}
	return nil
}

func (s *sink) record(id, text string, at time.Time, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.bad[err.Error()]++
		return
	}
	a := s.got[id]
	if a == nil {
		a = &answer{first: at, text: text}
		s.got[id] = a
	}
	a.count++
	select {
	case s.done <- struct{}{}:
	default:
	}
}

// waitAll returns once n events are answered, or after limit.
func (s *sink) waitAll(n int, limit time.Duration) {
	deadline := time.After(limit)
	for {
		s.mu.Lock()
		have := len(s.got)
		s.mu.Unlock()
		if have >= n {
			return
		}
		select {
		case <-s.done:
		case <-deadline:
			return
		}
	}
}

// snapshot copies what was received.
func (s *sink) snapshot() (map[string]answer, map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := make(map[string]answer, len(s.got))
	for id, a := range s.got {
		got[id] = *a
	}
	bad := make(map[string]int, len(s.bad))
	for e, n := range s.bad {
		bad[e] = n
	}
	return got, bad
}
