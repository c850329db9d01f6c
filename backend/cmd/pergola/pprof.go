package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// startPprof serves Go's /debug/pprof handlers on addr (PERGOLA_PPROF_ADDR,
// loopback only, off when empty) until ctx is done, on a listener of its
// own so the profiles never share the API's routes, middleware or port.
// The benchmarks under scripts/bench take CPU profiles from it. It
// returns the address it listens on ("" when off).
func startPprof(ctx context.Context, addr string, log *slog.Logger) (string, error) {
	if addr == "" {
		return "", nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("PERGOLA_PPROF_ADDR: %w", err)
	}
	srv := &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("pprof listener stopped", "err", err)
		}
	}()
	context.AfterFunc(ctx, func() { _ = srv.Close() })
	log.Info("serving /debug/pprof", "addr", ln.Addr().String())
	return ln.Addr().String(), nil
}

// pprofMux routes the profiles explicitly: importing net/http/pprof
// registers them on http.DefaultServeMux too, which nothing here serves.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
