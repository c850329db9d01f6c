package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestStdioMCPPlugin registers a stdio MCP server (a Python script of the
// standard library, run in the sandbox) as a platform administrator; a
// bot calls its tools; the server cannot reach the network; its process
// ends when idle and when killed, and the next call starts a new one.
// Non-administrators and an administrator's restricted token are refused
// saying why. On SQLite: the environment's storage is tested on both
// databases by the store's suite (sqlstore testPluginStdio), and a second
// server would only pay MariaDB's start again.
func TestStdioMCPPlugin(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if testenv.InCI() {
			t.Fatal("bwrap is missing in CI: scripts/services.sh installs it")
		}
		t.Skip("bwrap is not installed: stdio MCP servers cannot run here")
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "..", "infra", "mcp", "testdata", "stdio_server.py"))
	if err != nil {
		t.Fatal(err)
	}
	c := newChatSetup(t, withEnv(backends()[0], map[string]string{"PERGOLA_MCP_STDIO_IDLE": "500ms"}))
	stdioRound(t, c, string(script))
}

func stdioRound(t *testing.T, c *chatSetup, script string) {
	s := c.s
	marker := fmt.Sprintf("pergola-stdio-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	body := map[string]any{"workspace_id": c.ws, "kind": "mcp", "name": "Sandboxed", "transport": "stdio",
		"command": "/usr/bin/python3", "args": []string{"-I", "-c", script, marker}, "env": map[string]string{"GREETING": "hello-secret"}}

	eve := newUser(t, s, "eve-stdio@example.com")
	personal := str(items(t, s.call(t, "GET", "/v1/workspaces", eve, nil).must(t, 200).data, "workspaces")[0], "id")
	body["workspace_id"] = personal
	s.call(t, "POST", "/api/plugins", eve, body).fails(t, 403, 4101, "only platform administrators may register or change stdio MCP servers, because they run a command")
	narrow := str(s.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "narrow", "workspace_ids": []string{c.ws}}).must(t, 201).data, "token")
	body["workspace_id"] = c.ws
	s.call(t, "POST", "/api/plugins", narrow, body).fails(t, 403, 4101, "restricted to workspaces never acts as an administrator")

	created := s.call(t, "POST", "/api/plugins", bootstrapToken, body).must(t, 201)
	id := str(created.data, "id")
	raw, _ := json.Marshal(created.raw)
	if n := len(items(t, created.data, "tools")); n != 3 || bytes.Contains(raw, []byte("hello-secret")) || !bytes.Contains(raw, []byte(`"env_names":["GREETING"]`)) {
		t.Fatalf("created = %s", raw)
	}
	s.call(t, "PATCH", "/api/plugins/"+id, narrow, map[string]any{"args": []string{"-c", "print(1)"}}).fails(t, 403, 4101, "only platform administrators")
	s.call(t, "PATCH", "/api/plugins/"+id, narrow, map[string]any{"description": "renamed by a builder"}).must(t, 200)
	s.call(t, "POST", "/api/plugins/"+id+"/publish", narrow, nil).must(t, 201)

	botID := c.bot(t, map[string]any{"name": "Sandboxed bot", "model": map[string]any{"model_id": "fake"},
		"plugins": []map[string]any{{"plugin_id": id, "tool": "shout"}, {"plugin_id": id, "tool": "whoami"}, {"plugin_id": id, "tool": "net"}}})
	ask := func(call string) string {
		events := s.stream(t, "/v3/chat", narrow, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
			"additional_messages": userMessage(call)})
		return answerOf(t, events)
	}
	if got := ask(`#call shout {"text":"hi"}`); got != "tool said: HI" {
		t.Fatalf("shout answered %q", got)
	}
	u, _ := url.Parse(s.base)
	port, _ := strconv.Atoi(u.Port())
	if got := ask(fmt.Sprintf(`#call net {"port":%d}`, port)); strings.Contains(got, " reachable") || !strings.Contains(got, "1.1.1.1:80 blocked") {
		t.Fatalf("net answered %q", got)
	}
	first := bootOf(t, ask(`#call whoami {}`))
	waitGone(t, marker) // idle for 500ms: the process ends
	second := bootOf(t, ask(`#call whoami {}`))
	if second == first {
		t.Fatalf("the same process (%s) answered after the idle time", first)
	}
	for _, pid := range pidsOf(t, marker) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	third := bootOf(t, ask(`#call whoami {}`))
	if third == second || third == first {
		t.Fatalf("a killed server's process (%s) answered (%s)", second, third)
	}
}

// bootOf reads the start id whoami answers, checking the environment.
func bootOf(t *testing.T, answer string) string {
	t.Helper()
	boot, env, ok := strings.Cut(strings.TrimPrefix(answer, "tool said: boot="), " env=")
	if !ok || !strings.Contains(env, "GREETING=hello-secret") || strings.Contains(env, "PATH=") || strings.Contains(env, "PERGOLA_") {
		t.Fatalf("whoami answered %q", answer)
	}
	return boot
}

// pidsOf lists the live processes whose command line holds marker.
func pidsOf(t *testing.T, marker string) []int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && bytes.Contains(b, []byte(marker)) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			out = append(out, pid)
		}
	}
	return out
}

// waitGone waits until no process holds marker, up to 10s.
func waitGone(t *testing.T, marker string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if len(pidsOf(t, marker)) == 0 {
			return
		}
	}
	t.Fatalf("the server's process (%s) still runs", marker)
}
