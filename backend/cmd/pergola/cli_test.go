package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/secret"
)

// noEnv is an empty environment: every setting at its default, so a
// command that wrongly starts the server would create ./data.
func noEnv(string) (string, bool) { return "", false }

// TestHelpPrintsUsageAndCreatesNothing runs every way of asking for help
// in an empty working directory: each prints the usage with the
// sub-commands and the main settings, and nothing is created.
func TestHelpPrintsUsageAndCreatesNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"}, {"-help"}, {"serve", "--help"}, {"migrate", "-h"}, {"token", "--help"},
		{"healthcheck", "-h"}, {"secret", "--help"}, {"version", "-h"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), args, noEnv, &out); err != nil {
			t.Fatalf("pergola %v: %v", args, err)
		}
		for _, want := range []string{"usage: pergola", "serve", "migrate", "token --email", "healthcheck", "fakellm", "PERGOLA_DB_DSN", "PERGOLA_REDIS_PREFIX", "PERGOLA_SECRET_KEY"} {
			if !strings.Contains(out.String(), want) {
				t.Fatalf("pergola %v printed no %q:\n%s", args, want, out.String())
			}
		}
		assertEmptyDir(t, args)
	}
}

// TestBadArgumentsPrintUsageAndFail: unknown flags, commands and extra
// arguments fail (main exits 1) with a message naming them and the usage.
func TestBadArgumentsPrintUsageAndFail(t *testing.T) {
	t.Chdir(t.TempDir())
	cases := map[string][]string{
		`unknown flag "--port"`:    {"--port", "9000"},
		`unknown flag "-x"`:        {"-x"},
		`unknown command "frob"`:   {"frob"},
		"serve takes no arguments": {"serve", "--port", "1"},
		"migrate: flag provided":   {"migrate", "--bogus"},
		"secret takes no":          {"secret", "extra"},
		"token: unexpected":        {"token", "--email", "a@b.c", "extra"},
	}
	for want, args := range cases {
		var out bytes.Buffer
		err := run(context.Background(), args, noEnv, &out)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "usage: pergola") {
			t.Fatalf("pergola %v: error %v; want a usage error saying %q, followed by the usage", args, err, want)
		}
		assertEmptyDir(t, args)
	}
}

func assertEmptyDir(t *testing.T, args []string) {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > 0 {
		t.Fatalf("pergola %v created %s in the working directory", args, entries[0].Name())
	}
}

// TestWeakSecretKeyIsRefused: placeholder keys whose bytes are all the same
// (64 zeros, 64 ones, or the same as base64) stop the start with a message
// saying how to make a key; a generated key starts.
func TestWeakSecretKeyIsRefused(t *testing.T) {
	for _, key := range []string{
		strings.Repeat("0", 64), strings.Repeat("1", 64), strings.Repeat("fF", 32),
		base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x11}, secret.KeySize)),
	} {
		env := map[string]string{"PERGOLA_DATA_DIR": t.TempDir(), "PERGOLA_SECRET_KEY": key}
		err := serve(context.Background(), func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil)
		if err == nil || !strings.Contains(err.Error(), "PERGOLA_SECRET_KEY") || !strings.Contains(err.Error(), "pergola secret") {
			t.Fatalf("key %s: error %v; want a refusal naming PERGOLA_SECRET_KEY and `pergola secret`", key, err)
		}
	}
	key, _ := secret.ParseKey(secret.GenerateKey())
	if err := refuseWeakKey(key); err != nil {
		t.Fatalf("a generated key is refused: %v", err)
	}
	almost := bytes.Repeat([]byte{0}, secret.KeySize)
	almost[secret.KeySize-1] = 1
	if err := refuseWeakKey(almost); err != nil {
		t.Fatalf("a key with two distinct bytes is refused: %v", err)
	}
}

// TestHealthcheckCommand checks `pergola healthcheck` against a running
// server: by PERGOLA_ADDR, by --url, and failing for a non-200 answer or
// nothing listening.
func TestHealthcheckCommand(t *testing.T) {
	s := startServer(t, nil)
	addr := strings.TrimPrefix(s.base, "http://")
	check := func(env map[string]string, args ...string) (string, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"healthcheck"}, args...), func(k string) (string, bool) { v, ok := env[k]; return v, ok }, &out)
		return out.String(), err
	}
	if out, err := check(map[string]string{"PERGOLA_ADDR": addr}); err != nil || !strings.Contains(out, "answered 200") {
		t.Fatalf("healthcheck by PERGOLA_ADDR: %q, %v", out, err)
	}
	if _, err := check(nil, "--url", s.base+"/readyz"); err != nil {
		t.Fatalf("healthcheck --url: %v", err)
	}
	if _, err := check(nil, "--url", s.base+"/no-such-page"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("healthcheck of a 404: %v; want an error naming the status", err)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := check(map[string]string{"PERGOLA_ADDR": addr}); err == nil {
		t.Fatal("healthcheck passes with the server stopped")
	}
}

func TestReadyURL(t *testing.T) {
	for addr, want := range map[string]string{
		":8888": "http://127.0.0.1:8888/readyz", "0.0.0.0:80": "http://127.0.0.1:80/readyz",
		"[::]:80": "http://127.0.0.1:80/readyz", "10.1.2.3:9": "http://10.1.2.3:9/readyz",
	} {
		if got, err := readyURL(addr); err != nil || got != want {
			t.Errorf("readyURL(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
	if _, err := readyURL("8888"); err == nil || !strings.Contains(err.Error(), "PERGOLA_ADDR") {
		t.Errorf("readyURL(8888): %v; want an error naming PERGOLA_ADDR", err)
	}
}
