package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/backend/config"
)

// healthcheck is "pergola healthcheck": it GETs /readyz of the server on
// this machine and fails unless the answer is 200, so a container image
// without curl can have a health check.
func healthcheck(ctx context.Context, args []string, env config.Lookup, stdout io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	url := fs.String("url", "", "URL to check (default: /readyz on PERGOLA_ADDR, loopback for a wildcard host)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if done, err := parseFlags(fs, args, stdout); done {
		return err
	}
	if *url == "" {
		addr, ok := env("PERGOLA_ADDR")
		if !ok || strings.TrimSpace(addr) == "" {
			addr = config.Defaults().Addr
		}
		u, err := readyURL(strings.TrimSpace(addr))
		if err != nil {
			return err
		}
		*url = u
	}
	return getReady(ctx, *url, *timeout, stdout)
}

// readyURL turns a listen address into the URL of its /readyz, reached
// over loopback when the address listens on every interface.
func readyURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("PERGOLA_ADDR: must be host:port such as :8888, got %q", addr)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/readyz", nil
}

func getReady(ctx context.Context, url string, timeout time.Duration, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s answered %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	_, err = fmt.Fprintf(stdout, "ready: GET %s answered 200\n", url)
	return err
}
