package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
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

// buildPergola builds the binary for tests that kill it.
func buildPergola(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pergola")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// freePort returns a TCP port of 127.0.0.1 nobody listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// requireCommand returns the path of a program the test needs: missing,
// it fails the test under CI=true and skips it elsewhere.
func requireCommand(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if testenv.InCI() {
			t.Fatalf("%s is required under CI=true: %v", name, err)
		}
		t.Skipf("%s not installed, skipping (set CI=true to make this a failure)", name)
	}
	return path
}

// daemon is a server a fault test starts, kills and starts again: a
// private MariaDB or Redis, never the shared ones.
type daemon struct {
	name string
	args []string
	port int
	cmd  *exec.Cmd
	log  *bytes.Buffer
}

// start runs the daemon and waits until its port accepts connections.
func (d *daemon) start(t *testing.T) {
	t.Helper()
	d.log = &bytes.Buffer{}
	d.cmd = exec.Command(d.args[0], d.args[1:]...)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", d.name, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.Dial("tcp", d.addr()); err == nil {
			_ = c.Close()
			return
		}
		if time.Now().After(deadline) {
			d.kill()
			t.Fatalf("%s did not listen on %s in 20s:\n%s", d.name, d.addr(), d.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill ends the daemon with SIGKILL (a crash: nothing is flushed).
func (d *daemon) kill() {
	if d.cmd != nil && d.cmd.ProcessState == nil {
		_ = d.cmd.Process.Kill()
		_ = d.cmd.Wait()
	}
}

func (d *daemon) addr() string { return "127.0.0.1:" + strconv.Itoa(d.port) }

// privateMariaDB installs a MariaDB data directory under a temporary
// directory and starts mariadbd on a free port; the server is killed and
// the directory removed when the test ends. It returns the daemon and the
// DSN of an empty database "pergola" on it.
func privateMariaDB(t *testing.T) (*daemon, string) {
	t.Helper()
	server := requireCommand(t, "mariadbd")
	install := requireCommand(t, "mariadb-install-db")
	dir, err := os.MkdirTemp("", "pergola-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	data := filepath.Join(dir, "data")
	out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--user="+currentUser()).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	d := &daemon{name: "mariadbd", port: freePort(t)}
	d.args = []string{server, "--no-defaults", "--datadir=" + data, "--port=" + strconv.Itoa(d.port),
		"--socket=" + filepath.Join(dir, "sock"), "--bind-address=127.0.0.1", "--skip-log-bin", "--user=" + currentUser(),
		"--pid-file=" + filepath.Join(dir, "pid"), "--innodb-buffer-pool-size=32M", "--skip-name-resolve"}
	t.Cleanup(d.kill) // registered after RemoveAll: runs first
	d.start(t)
	base := "root@tcp(" + d.addr() + ")/"
	db, err := sql.Open("mysql", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE pergola CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return d, base + "pergola?parseTime=true&loc=UTC&charset=utf8mb4"
}

// privateRedis starts redis-server on a free port without persistence;
// it is killed when the test ends.
func privateRedis(t *testing.T) *daemon {
	t.Helper()
	server := requireCommand(t, "redis-server")
	d := &daemon{name: "redis-server", port: freePort(t)}
	d.args = []string{server, "--port", strconv.Itoa(d.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir()}
	t.Cleanup(d.kill)
	d.start(t)
	return d
}

func currentUser() string {
	if os.Getuid() == 0 {
		return "root"
	}
	return strconv.Itoa(os.Getuid())
}

// faultBot registers the fake model at url and publishes a bot on it; it
// returns the bot's id.
func faultBot(t *testing.T, s *testServer, url string) string {
	t.Helper()
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "slow", "provider": "openai",
		"base_url": url, "api_key": "k", "model": "fake"}).must(t, 201)
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	botID := str(s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "Slow",
		"model": map[string]any{"model_id": "slow"}}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, nil).must(t, 201)
	return botID
}

// chatStream is a streamed chat a test reads as it goes.
type chatStream struct {
	conv, id string
	rd       *bufio.Reader
}

// openChat starts a streamed chat and reads it until the first text delta;
// the stream is closed when the test ends (the server may die first).
func openChat(t *testing.T, s *testServer, botID, convID, question string) *chatStream {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"bot_id": botID, "user_id": "u", "stream": true,
		"additional_messages": userMessage(question)})
	path := "/v3/chat"
	if convID != "" {
		path += "?conversation_id=" + convID
	}
	req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	cs := &chatStream{rd: bufio.NewReader(resp.Body)}
	created := cs.until(t, "conversation.message.delta")
	cs.conv, cs.id = str(created, "conversation_id"), str(created, "id")
	return cs
}

// until reads events until one named name; it returns the data of the
// first event read.
func (cs *chatStream) until(t *testing.T, name string) map[string]any {
	t.Helper()
	var event string
	var first map[string]any
	for {
		line, err := cs.rd.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the chat stream for %s: %v", name, err)
		}
		if strings.HasPrefix(line, "event: ") {
			event = strings.TrimSpace(strings.TrimPrefix(line, "event: "))
		}
		if strings.HasPrefix(line, "data: ") && first == nil {
			_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &first)
		}
		if event == name {
			return first
		}
	}
}

// conversationMessages lists every message of a conversation, oldest
// first.
func conversationMessages(t *testing.T, s *testServer, convID string) []map[string]any {
	t.Helper()
	r := s.call(t, "POST", "/v1/conversation/message/list?conversation_id="+convID, bootstrapToken,
		map[string]any{"order": "asc", "limit": 50}).must(t, 200)
	list, _ := r.raw["data"].([]any)
	out := make([]map[string]any, len(list))
	for i, m := range list {
		out[i], _ = m.(map[string]any)
	}
	return out
}

// countMessages counts the messages of role with content text.
func countMessages(msgs []map[string]any, role, text string) int {
	n := 0
	for _, m := range msgs {
		if str(m, "role") == role && str(m, "content") == text {
			n++
		}
	}
	return n
}

// waitFor polls check every 100ms until it passes, for at most 30s.
func waitFor(t *testing.T, what string, check func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for !check() {
		if ctx.Err() != nil {
			t.Fatalf("waited 30s for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// rawStatus is a GET whose connection may fail: it returns the status and
// the Retry-After header, or 0 when nothing answered.
func rawStatus(s *testServer, path string) (int, string, string) {
	req, _ := http.NewRequest("GET", s.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return 0, "", err.Error()
	}
	defer resp.Body.Close()
	var env struct {
		Msg string `json:"msg"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&env)
	return resp.StatusCode, resp.Header.Get("Retry-After"), env.Msg
}

func fmtMessages(msgs []map[string]any) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "\n  %s/%s: %.60q", str(m, "role"), str(m, "type"), str(m, "content"))
	}
	return b.String()
}
