package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/common/config"
	"github.com/cloudwego/hertz/pkg/common/ut"
	"github.com/cloudwego/hertz/pkg/route"
	"github.com/prometheus/client_golang/prometheus"
	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/backend/api"
	pconfig "github.com/pergola-ai/pergola/backend/config"
)

// TestCacheWarmRequestStatements wires the server's features in process,
// over a database whose statements it counts (those run for the request
// being measured, not the background workers'), and checks that a warm
// authenticated request reads no token, user or membership: GET
// /v1/users/me runs no statement at all, and GET /v1/bot/get_online_info
// only reads the bot and its version (the model is cached too).
func TestCacheWarmRequestStatements(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := newCountedServer(t, b.env(t))
			s.do(t, "POST", "/api/admin/models", map[string]any{"id": "fake", "provider": "openai",
				"base_url": "http://127.0.0.1:9/v1", "api_key": "k", "model": "fake"})
			ws := s.do(t, "GET", "/v1/workspaces", nil)["workspaces"].([]any)[0].(map[string]any)["id"].(string)
			bot := s.do(t, "POST", "/v1/bot/create", map[string]any{"space_id": ws, "name": "Counted",
				"model_info_config": map[string]any{"model_id": "fake"}})["bot_id"].(string)
			s.do(t, "POST", "/v1/bot/publish", map[string]any{"bot_id": bot})
			for _, tc := range []struct {
				path string
				want int64
			}{
				{"/v1/users/me", 0},
				// The bot and its version; no token, user, membership or model.
				{"/v1/bot/get_online_info?bot_id=" + bot, 2},
			} {
				s.do(t, "GET", tc.path, nil) // warms the caches
				n := s.statements(func() { s.do(t, "GET", tc.path, nil) })
				t.Logf("statements of a warm GET %s: %d", tc.path, n)
				if n != tc.want {
					t.Errorf("a warm GET %s ran %d statements, want %d", tc.path, n, tc.want)
				}
			}
		})
	}
}

// countedServer is the server's routes and features in process, with a
// count of the statements run on behalf of its requests.
type countedServer struct {
	engine *route.Engine
	count  atomic.Int64
}

type countedKey struct{}

func newCountedServer(t *testing.T, extra map[string]string) *countedServer {
	t.Helper()
	env := map[string]string{"PERGOLA_DATA_DIR": t.TempDir(), "PERGOLA_BOOTSTRAP_TOKEN": bootstrapToken}
	for k, v := range extra {
		env[k] = v
	}
	cfg, err := pconfig.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	box, err := secretBox(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDB(ctx, cfg, box, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	shared, err := openKV(ctx, cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(shared.close)
	deps, cleanup, err := features(ctx, cfg, db, box, nil, log, prometheus.NewRegistry(), shared)
	t.Cleanup(cleanup)
	if err != nil {
		t.Fatal(err)
	}
	opts := config.NewOptions(nil)
	opts.DisablePrintRoute = true
	s := &countedServer{engine: route.NewEngine(opts)}
	s.engine.Use(func(ctx context.Context, c *app.RequestContext) { c.Next(context.WithValue(ctx, countedKey{}, true)) })
	api.Register(s.engine, deps)
	s.countOn(t, db.Gorm())
	return s
}

// countOn counts every statement whose context comes from a request.
func (s *countedServer) countOn(t *testing.T, g *gorm.DB) {
	t.Helper()
	count := func(db *gorm.DB) {
		if db.Statement.Context != nil && db.Statement.Context.Value(countedKey{}) != nil {
			s.count.Add(1)
		}
	}
	cb := g.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("test:count_create", count),
		cb.Query().After("gorm:query").Register("test:count_query", count),
		cb.Update().After("gorm:update").Register("test:count_update", count),
		cb.Delete().After("gorm:delete").Register("test:count_delete", count),
		cb.Row().After("gorm:row").Register("test:count_row", count),
		cb.Raw().After("gorm:raw").Register("test:count_raw", count),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (s *countedServer) statements(fn func()) int64 {
	before := s.count.Load()
	fn()
	return s.count.Load() - before
}

// do sends a request as the bootstrap administrator and returns the
// answer's data, failing the test unless it succeeded.
func (s *countedServer) do(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	var b *ut.Body
	if body != nil {
		raw, _ := json.Marshal(body)
		b = &ut.Body{Body: strings.NewReader(string(raw)), Len: len(raw)}
	}
	resp := ut.PerformRequest(s.engine, method, path, b, ut.Header{Key: "Authorization", Value: "Bearer " + bootstrapToken},
		ut.Header{Key: "Content-Type", Value: "application/json"}).Result()
	var env struct {
		Code int            `json:"code"`
		Msg  string         `json:"msg"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(resp.Body(), &env); err != nil || resp.StatusCode() >= 300 || env.Code != 0 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode(), resp.Body())
	}
	return env.Data
}
