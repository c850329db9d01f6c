package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/network/standard"
	"github.com/cloudwego/hertz/pkg/protocol/sse"
)

// TestAccessLogCountsStreamedBytes: the access log names the body size of
// a streamed (SSE) answer, as the client received it, and of a buffered
// one.
func TestAccessLogCountsStreamedBytes(t *testing.T) {
	var logs syncBuffer
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := server.New(server.WithListener(ln), server.WithTransport(standard.NewTransporter), server.WithExitWaitTime(0))
	h.Use(AccessLog(slog.New(slog.NewJSONHandler(&logs, nil))))
	h.GET("/stream", func(ctx context.Context, c *app.RequestContext) {
		w := sse.NewWriter(c)
		for i := 0; i < 40; i++ {
			_ = w.WriteEvent("", "delta", []byte(strings.Repeat("x", i*7)))
		}
	})
	h.GET("/plain", func(ctx context.Context, c *app.RequestContext) { c.String(200, "hello") })
	go h.Spin()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })

	for _, path := range []string{"/stream", "/plain"} {
		body := get(t, "http://"+ln.Addr().String()+path)
		if got := loggedBytes(t, &logs, path); got != len(body) {
			t.Errorf("%s: access log says %d bytes, the client read %d", path, got, len(body))
		}
	}
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if resp, err = http.Get(url); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loggedBytes waits for the access log line of path and returns its bytes.
func loggedBytes(t *testing.T, logs *syncBuffer, path string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, line := range strings.Split(logs.String(), "\n") {
			var rec struct {
				Path  string `json:"path"`
				Bytes int    `json:"bytes"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Path == path {
				return rec.Bytes
			}
		}
	}
	t.Fatalf("no access log line for %s in %s", path, logs.String())
	return 0
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
