package provider_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"

	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/provider"
)

// connCounter counts the connections a server holds open, as the server
// sees them: accepted and not yet closed.
type connCounter struct {
	mu      sync.Mutex
	open    map[net.Conn]http.ConnState
	maxOpen int
}

func (c *connCounter) track(conn net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(c.open, conn)
	default:
		c.open[conn] = st
	}
	c.maxOpen = max(c.maxOpen, len(c.open))
}

func (c *connCounter) count() (open, peak int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open), c.maxOpen
}

// waitOpen polls until at most want connections are open, for at most 10s.
func (c *connCounter) waitOpen(t *testing.T, want int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		open, _ := c.count()
		if open <= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d connections still open to the model endpoint, want at most %d", what, open, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startCountedLLM serves a slow-streaming fake model and counts its
// connections.
func startCountedLLM(t *testing.T) (*connCounter, string) {
	t.Helper()
	llm := fakellm.New(fakellm.WithChunkChars(4), fakellm.WithTokenLatency(5*time.Millisecond), fakellm.WithRecordLimit(0))
	c := &connCounter{open: map[net.Conn]http.ConnState{}}
	srv := httptest.NewUnstartedServer(llm.Handler())
	srv.Config.ConnState = c.track
	srv.Start()
	t.Cleanup(srv.Close)
	return c, srv.URL + "/v1"
}

// TestModelPoolStaysBoundedAfterDroppedStreams opens 200 streamed model
// calls at once through the shared client; half are dropped midway (as a
// chat whose run is cancelled), half read to the end (as a chat whose
// client went away while the run went on). Afterwards the endpoint holds
// no more connections than the idle pool allows, and none once the idle
// timeout has passed.
func TestModelPoolStaysBoundedAfterDroppedStreams(t *testing.T) {
	const calls, perHost = 200, 8
	counter, baseURL := startCountedLLM(t)
	client := provider.NewHTTPClient(provider.Pool{MaxIdlePerHost: perHost, IdleTimeout: 700 * time.Millisecond})
	cm, err := provider.Factory{HTTPClient: client}.ChatModel(context.Background(), openAIModel(baseURL))
	if err != nil {
		t.Fatal(err)
	}
	var started, done sync.WaitGroup
	release := make(chan struct{})
	errc := make(chan error, calls)
	started.Add(calls)
	done.Add(calls)
	for i := range calls {
		go func() {
			defer done.Done()
			errc <- streamOnce(cm, i%2 == 0, &started, release)
		}()
	}
	started.Wait()
	if _, peak := counter.count(); peak < calls {
		t.Fatalf("only %d connections were open at once; the test needs %d concurrent streams", peak, calls)
	}
	close(release)
	done.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	counter.waitOpen(t, perHost, "after the streams ended")
	counter.waitOpen(t, 0, "after the idle timeout")
}

// streamOnce starts a stream, reads its first chunk, waits for release and
// then either drops the stream (cancel) or reads it to its end.
func streamOnce(cm model.ToolCallingChatModel, drop bool, started *sync.WaitGroup, release <-chan struct{}) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sr, err := cm.Stream(ctx, user(strings.Repeat("a long question ", 20)))
	if err != nil {
		started.Done()
		return err
	}
	defer sr.Close()
	_, err = sr.Recv()
	started.Done()
	if err != nil {
		return err
	}
	<-release
	if drop {
		cancel()
		return nil
	}
	for {
		if _, err := sr.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
