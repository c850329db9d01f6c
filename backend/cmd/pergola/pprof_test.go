package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestPprofListener serves the profile index on its own address when
// asked, stops with its context, and listens nowhere when off.
func TestPprofListener(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if addr, err := startPprof(context.Background(), "", log); addr != "" || err != nil {
		t.Fatalf("off: %q, %v; want no listener", addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, err := startPprof(ctx, "127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + addr + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "goroutine") {
		t.Fatalf("index: %d %.200s", resp.StatusCode, body)
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := client.Get("http://" + addr + "/debug/pprof/"); err != nil {
			return // closed
		}
		if time.Now().After(deadline) {
			t.Fatal("the pprof listener still answers after its context ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
