package chat

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/domain/variable"
	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/provider"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// The benchmarks below run one chat turn against the zero-latency fake
// LLM over HTTP, through the real eino-ext OpenAI client: through the
// platform (agent cache, prompt, history, events, persistence on SQLite)
// and, beside it, through a bare eino ReAct agent on the same model, so
// the difference is what the platform adds.
//
//	go test -run x -bench . -benchmem ./application/chat/

type benchEnv struct {
	svc  *Service
	conv int64
	url  string
}

func newBenchEnv(b *testing.B, cfg bot.Config) *benchEnv {
	return newBenchEnvOn(b, cfg, "")
}

// newBenchEnvOn stores on MariaDB when dsn is set, on SQLite otherwise.
func newBenchEnvOn(b *testing.B, cfg bot.Config, dsn string) *benchEnv {
	b.Helper()
	srv := fakellm.New(fakellm.WithRecordLimit(0))
	url, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{DSN: dsn, SQLitePath: filepath.Join(b.TempDir(), "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	conv := &conversation.Conversation{WorkspaceID: 1, BotID: 7}
	if err := db.Conversations().CreateConversation(ctx, conv); err != nil {
		b.Fatal(err)
	}
	cfg.Model.ModelID = "fake"
	cfg.Normalize()
	store := &memStore{conv: *conv, chats: map[int64]conversation.Chat{}}
	svc := New(Deps{
		Bots:          &fakeBots{bot: bot.Bot{ID: 7, WorkspaceID: 1}, cfg: cfg, version: 1, values: map[string]string{}},
		Conversations: store, Messages: db.Messages(), Chats: db.Chats(),
		Models: fixedModels{llm.Model{ID: "fake", Provider: llm.ProviderOpenAI, BaseURL: url, APIKey: "k", Model: "fake",
			Enabled: true, Capabilities: llm.Capabilities{Tools: true}}},
		ChatModels: provider.Factory{}, IDs: db.IDs(),
	})
	return &benchEnv{svc: svc, conv: conv.ID, url: url}
}

// turn runs one chat and returns when its last event is sent, reporting
// when the first answer delta arrived.
func (e *benchEnv) turn(b *testing.B, text string) (firstToken time.Duration) {
	rec := newRecorder()
	start := time.Now()
	_, err := e.svc.Start(context.Background(), benchCaller, Request{BotID: 7, ConversationID: e.conv, UserID: "u",
		AdditionalMessages: []InputMessage{{Role: "user", Content: text}}, AutoSaveHistory: true}, &firstDelta{rec: rec, start: start, at: &firstToken})
	if err != nil {
		b.Fatal(err)
	}
	<-rec.done
	return firstToken
}

type firstDelta struct {
	rec   *recorder
	start time.Time
	at    *time.Duration
}

func (f *firstDelta) Send(e Event) {
	if e.Kind == EventMessageDelta && *f.at == 0 {
		*f.at = time.Since(f.start)
	}
	if e.Kind == EventDone {
		close(f.rec.done)
	}
}

var benchCaller = newHarnessCaller()

func BenchmarkChatTurnNoTools(b *testing.B) {
	e := newBenchEnv(b, bot.Config{Name: "b", HistoryRounds: 3})
	e.turn(b, "warm up")
	b.ResetTimer()
	var ttft time.Duration
	for i := 0; i < b.N; i++ {
		ttft += e.turn(b, "hello")
	}
	b.ReportMetric(float64(ttft.Nanoseconds())/float64(b.N), "ns-to-first-token")
}

func BenchmarkChatTurnNoToolsMariaDB(b *testing.B) {
	e := newBenchEnvOn(b, bot.Config{Name: "b", HistoryRounds: 3}, testenv.MySQL(b))
	e.turn(b, "warm up")
	b.ResetTimer()
	var ttft time.Duration
	for i := 0; i < b.N; i++ {
		ttft += e.turn(b, "hello")
	}
	b.ReportMetric(float64(ttft.Nanoseconds())/float64(b.N), "ns-to-first-token")
}

func BenchmarkChatTurnOneToolRound(b *testing.B) {
	e := newBenchEnv(b, bot.Config{Name: "b", HistoryRounds: 3, Variables: []variable.Definition{{Keyword: "city"}}})
	msg := `#call setKeywordMemory {"data":[{"keyword":"city","value":"Oslo"}]}`
	e.turn(b, msg)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.turn(b, msg)
	}
}

// BenchmarkBareEinoTurnNoTools is the same turn with nothing but eino: a
// react agent on the same model, streamed and drained.
func BenchmarkBareEinoTurnNoTools(b *testing.B) {
	e := newBenchEnv(b, bot.Config{Name: "b"})
	cm, err := provider.Factory{}.ChatModel(context.Background(), llm.Model{ID: "fake", Provider: llm.ProviderOpenAI, BaseURL: e.url, APIKey: "k", Model: "fake"})
	if err != nil {
		b.Fatal(err)
	}
	ag, err := react.NewAgent(context.Background(), &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: compose.ToolsNodeConfig{},
		StreamToolCallChecker: scanForToolCalls})
	if err != nil {
		b.Fatal(err)
	}
	in := []*schema.Message{schema.SystemMessage("You are a bot."), schema.UserMessage("hello")}
	b.ResetTimer()
	var ttft time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		sr, err := ag.Stream(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		first := true
		for {
			if _, err := sr.Recv(); err != nil {
				break
			}
			if first {
				ttft += time.Since(start)
				first = false
			}
		}
		sr.Close()
	}
	b.ReportMetric(float64(ttft.Nanoseconds())/float64(b.N), "ns-to-first-token")
}
