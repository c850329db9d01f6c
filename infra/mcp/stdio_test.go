package mcp

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// stdioServer returns the test server's config, or skips the test where
// bubblewrap is missing outside CI.
func stdioServer(t *testing.T) StdioConfig {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if testenv.InCI() {
			t.Fatal("bwrap is missing in CI")
		}
		t.Skip("bwrap is not installed: stdio MCP servers cannot run here")
	}
	script, err := os.ReadFile("testdata/stdio_server.py")
	if err != nil {
		t.Fatal(err)
	}
	return StdioConfig{Command: "/usr/bin/python3", Args: []string{"-I", "-c", string(script)},
		Env: map[string]string{"GREETING": "hello"}, Sandbox: Sandbox{Timeout: 10 * time.Second}}
}

// TestStdioServer starts a stdio server in the sandbox: its tools are
// listed and called, its environment is only what was given, it cannot
// reach the network, and Alive turns false once it is closed.
func TestStdioServer(t *testing.T) {
	c, err := ConnectStdio(context.Background(), stdioServer(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 3 {
		t.Fatalf("tools = %v, %v", tools, err)
	}
	if out, err := c.CallTool(ctx, "shout", map[string]any{"text": "hi"}); err != nil || out != "HI" {
		t.Fatalf("shout = %q, %v", out, err)
	}
	// Python adds LC_CTYPE, bwrap PWD; nothing of this process's comes in.
	if out, err := c.CallTool(ctx, "whoami", nil); err != nil || !strings.Contains(out, "GREETING=hello") || strings.Contains(out, "PATH=") || strings.Contains(out, "HOME=") {
		t.Fatalf("whoami = %q, %v", out, err)
	}
	out, err := c.CallTool(ctx, "net", nil)
	if err != nil || strings.Contains(out, ":80 reachable") || !strings.Contains(out, "1.1.1.1:80 blocked") {
		t.Fatalf("net = %q, %v", out, err)
	}
	if !c.Alive() {
		t.Fatal("not alive")
	}
	_ = c.Close()
	if c.Alive() {
		t.Fatal("alive after Close")
	}
}

// TestStdioServerStartFailure reports what a server that fails at start
// printed.
func TestStdioServerStartFailure(t *testing.T) {
	cfg := stdioServer(t)
	cfg.Args = []string{"-c", "import sys; sys.stderr.write('missing API key'); sys.exit(3)"}
	_, err := ConnectStdio(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "missing API key") {
		t.Fatalf("err = %v", err)
	}
}
