package fakellm

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultRecordLimit is how many requests a server keeps for Requests unless
// WithRecordLimit says otherwise.
const DefaultRecordLimit = 1000

// Server is a scriptable OpenAI-compatible chat completions server. Its
// methods are safe for concurrent use.
type Server struct {
	cfg config
	seq atomic.Int64 // numbers completions and generated tool-call IDs

	mu          sync.Mutex
	queue       []Reply
	rules       []rule
	records     []Request    // a ring of at most cfg.recordLimit requests
	next        int          // where the next record goes once the ring is full
	embedFaults []EmbedFault // faults.go
	stats       EmbedStats
	httpSrv     *http.Server
	baseURL     string
	listener    net.Listener
}

type rule struct {
	match func(Request) bool
	reply func(Request) Reply
}

type config struct {
	tokenLatency      time.Duration
	firstTokenLatency time.Duration
	chunkChars        int
	recordLimit       int
	models            []string
	apiKey            string
	textOnly          []string // models refusing image parts (parts.go)
}

// Option configures a Server.
type Option func(*config)

// WithTokenLatency makes the server sleep d between streamed chunks. A
// non-streaming reply waits as long as its stream would have taken.
func WithTokenLatency(d time.Duration) Option { return func(c *config) { c.tokenLatency = d } }

// WithFirstTokenLatency makes the server sleep d before the first chunk of a
// stream, or before a non-streaming reply.
func WithFirstTokenLatency(d time.Duration) Option {
	return func(c *config) { c.firstTokenLatency = d }
}

// WithChunkChars sets how many characters each streamed content or argument
// delta carries; the default is 8. Values below 1 mean 1.
func WithChunkChars(n int) Option { return func(c *config) { c.chunkChars = max(n, 1) } }

// WithRecordLimit keeps at most n of the latest requests for Requests;
// 0 turns recording off, which benchmarks want. The default is
// DefaultRecordLimit.
func WithRecordLimit(n int) Option { return func(c *config) { c.recordLimit = max(n, 0) } }

// WithModels sets the model IDs listed by GET /v1/models; the default is
// "fake". Requests may name any model regardless.
func WithModels(ids ...string) Option { return func(c *config) { c.models = ids } }

// WithAPIKey makes the server answer 401 to requests whose bearer token is
// not key.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// New returns a server with the given options. Serve it with Listen, or
// mount Handler on a server of your own.
func New(opts ...Option) *Server {
	cfg := config{chunkChars: 8, recordLimit: DefaultRecordLimit, models: []string{"fake"}}
	for _, o := range opts {
		o(&cfg)
	}
	return &Server{cfg: cfg}
}

// Enqueue appends replies to the queue; each request consumes the oldest
// queued reply before rules and the default behaviour are considered.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// When adds a rule: when the queue is empty and match accepts a request (and
// no earlier rule did), reply builds the answer. Both functions may run
// concurrently.
func (s *Server) When(match func(Request) bool, reply func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, rule{match: match, reply: reply})
}

// Requests returns the recorded requests, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, 0, len(s.records))
	out = append(out, s.records[s.next:]...)
	return append(out, s.records[:s.next]...)
}

// Reset forgets the recorded requests, the queue, the rules, the
// embedding faults and the embedding counters.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records, s.next, s.queue, s.rules = nil, 0, nil, nil
	s.embedFaults, s.stats = nil, EmbedStats{}
}

// keep records r for Requests.
func (s *Server) keep(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepLocked(r)
}

func (s *Server) keepLocked(r Request) {
	limit := s.cfg.recordLimit
	switch {
	case limit <= 0:
	case len(s.records) < limit:
		s.records = append(s.records, r)
	default:
		s.records[s.next] = r
		s.next = (s.next + 1) % limit
	}
}

// record keeps r and picks the reply for it.
func (s *Server) record(r Request) Reply {
	s.mu.Lock()
	s.keepLocked(r)
	if len(s.queue) > 0 {
		reply := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return reply
	}
	rules := s.rules
	s.mu.Unlock()
	for _, rl := range rules {
		if rl.match(r) {
			return rl.reply(r)
		}
	}
	return defaultReply(r)
}

// Listen serves on addr (e.g. "127.0.0.1:0") in the background and returns
// the OpenAI base URL to give clients, e.g. "http://127.0.0.1:8999/v1".
// It fails when the address cannot be bound or the server already listens.
func (s *Server) Listen(addr string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listener != nil {
		return "", errors.New("fakellm: already listening")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("fakellm: listen: %w", err)
	}
	s.listener = ln
	s.httpSrv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	s.baseURL = "http://" + ln.Addr().String() + "/v1"
	go func(srv *http.Server) { _ = srv.Serve(ln) }(s.httpSrv)
	return s.baseURL, nil
}

// BaseURL returns the OpenAI base URL once Listen succeeded, else "".
func (s *Server) BaseURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.baseURL
}

// Close stops a listening server and drops open connections, streams
// included. It is a no-op for a server that does not listen.
func (s *Server) Close() error {
	s.mu.Lock()
	srv := s.httpSrv
	s.httpSrv, s.listener, s.baseURL = nil, nil, ""
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// TB is the part of testing.TB that Start needs.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// Start returns a server listening on a free 127.0.0.1 port, closed when the
// test ends. It fails the test when it cannot listen.
func Start(tb TB, opts ...Option) *Server {
	tb.Helper()
	s := New(opts...)
	if _, err := s.Listen("127.0.0.1:0"); err != nil {
		tb.Fatalf("start fake LLM: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}
