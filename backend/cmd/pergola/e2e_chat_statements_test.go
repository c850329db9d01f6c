package main

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// statementLog reads the SQL a server runs, as sqlstore.StatementCounter
// records it, without the heartbeat of crash recovery, which runs on its
// own clock.
type statementLog struct {
	mu      sync.Mutex
	counter *sqlstore.StatementCounter
}

func (l *statementLog) attach(c *sqlstore.StatementCounter) {
	l.mu.Lock()
	l.counter = c
	l.mu.Unlock()
}

func (l *statementLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counter.Reset()
}

func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.counter.Statements() {
		if !strings.Contains(s, "process_instances") {
			out = append(out, s)
		}
	}
	return out
}

// waitFor waits until a statement matching want was run, for the end of a
// chat that runs on after its request answered.
func (l *statementLog) waitFor(t *testing.T, want string) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		sqls := l.take()
		if slices.ContainsFunc(sqls, func(s string) bool { return statementKind(s) == want }) {
			return sqls
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q after 20s; statements: %v", want, kindsOf(sqls))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var statementTable = regexp.MustCompile("(?i)^\\s*(SELECT|INSERT|UPDATE|DELETE)\\b(?:.*?\\b(?:FROM|INTO))?\\s+`?(\\w+)`?")

// statementKind names a statement by its verb and first table, e.g.
// "SELECT conversations".
func statementKind(sql string) string {
	if m := statementTable.FindStringSubmatch(sql); m != nil {
		return strings.ToUpper(m[1]) + " " + m[2]
	}
	return sql
}

func kindsOf(sqls []string) []string {
	out := make([]string, len(sqls))
	for i, s := range sqls {
		out[i] = statementKind(s)
	}
	return out
}

// turnTables are the tables the chat runtime itself reads and writes; the
// token, user, membership, bot, version and model reads before them are
// the identity and bot services' (and cached there).
var turnTables = []string{"conversations", "messages", "chats", "variable_values"}

// turnStatements counts the statements of a turn on turnTables by kind.
func turnStatements(sqls []string) map[string]int {
	out := map[string]int{}
	for _, k := range kindsOf(sqls) {
		if f := strings.Fields(k); len(f) == 2 && slices.Contains(turnTables, f[1]) {
			out[k]++
		}
	}
	return out
}

// othersAtMost bounds the statements a warm turn spends outside the chat
// runtime (token, user, bot, membership, publication, version, model):
// what they cost before their caches, so the test holds with or without.
const othersAtMost = 7

// startObservedServer is startServer with every statement of the server
// going to log.
func startObservedServer(t *testing.T, b backend, log *statementLog) *chatSetup {
	t.Helper()
	llm := fakellm.New(fakellm.WithChunkChars(4))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	env := map[string]string{"PERGOLA_ADDR": "127.0.0.1:0", "PERGOLA_DATA_DIR": t.TempDir(),
		"PERGOLA_BOOTSTRAP_TOKEN": bootstrapToken, "PERGOLA_LOG_LEVEL": "error"}
	maps.Copy(env, b.env(t))
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), statementCounterKey{}, log.attach))
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- serve(ctx, lookup, ready) }()
	t.Cleanup(func() { cancel(); <-done })
	var s *testServer
	select {
	case addr := <-ready:
		s = &testServer{base: "http://" + addr, stop: func() error { cancel(); return nil }}
	case err := <-done:
		t.Fatalf("server did not start: %v", err)
	}
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai", "base_url": url,
		"api_key": "k", "model": "fake", "capabilities": map[string]any{"tools": true}}).must(t, 201)
	ws := s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200)
	return &chatSetup{s: s, llm: llm, ws: str(items(t, ws.data, "workspaces")[0], "id")}
}

// turnCase is one kind of warm turn and the statements it may run on
// turnTables.
type turnCase struct {
	name   string
	bot    string
	text   string
	stream bool
	want   map[string]int
}

// TestChatTurnStatements counts the statements of warm /v3/chat turns,
// streamed and not, with and without a setKeywordMemory round, so that a
// repeated read, a read before a write or a split write fails here. A
// turn reads its conversation with the history in one query, stores the
// chat with the question in one transaction and the answer with the
// outcome in another; keyword memory adds its read and its write. On
// SQLite the conversation and its history are two statements, cheaper
// there than the join MySQL gets them with.
func TestChatTurnStatements(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			log := &statementLog{}
			c := startObservedServer(t, b, log)
			plain := c.bot(t, map[string]any{"name": "Plain", "prompt": "Be brief.", "model": map[string]any{"model_id": "fake"}})
			memory := c.bot(t, map[string]any{"name": "Memory", "prompt": "You help {{name}}.", "model": map[string]any{"model_id": "fake"},
				"variables": []map[string]any{{"keyword": "name", "default": "friend", "show_in_prompt": true}}})
			base := map[string]int{"SELECT conversations": 1, "INSERT chats": 1, "INSERT messages": 2, "UPDATE chats": 1}
			if b.name == "sqlite" { // no round trip to save: the history is a statement of its own
				base["SELECT messages"] = 1
			}
			vars := with(base, "SELECT variable_values", 1)
			tool := with(vars, "INSERT variable_values", 1)
			remember := `#call setKeywordMemory {"data":[{"keyword":"name","value":"Ada"}]}`
			cases := []turnCase{
				{"streamed", plain, "hello", true, base},
				{"non-streamed", plain, "hello", false, base},
				{"streamed, bot with variables", memory, "hello", true, vars},
				{"streamed, one keyword memory round", memory, remember, true, tool},
				{"non-streamed, one keyword memory round", memory, remember, false, tool},
			}
			convs := map[string]string{plain: c.firstTurn(t, plain), memory: c.firstTurn(t, memory)}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					log.reset()
					chatID := c.turn(t, log, convs[tc.bot], tc)
					sqls := log.take()
					t.Logf("%d statements: %v", len(sqls), kindsOf(sqls))
					checkTurnStatements(t, sqls, tc.want)
					if final := pollChat(t, c.s, convs[tc.bot], chatID); str(final, "status") != "completed" {
						t.Fatalf("chat = %v", final)
					}
				})
			}
		})
	}
}

func with(m map[string]int, k string, n int) map[string]int {
	out := maps.Clone(m)
	out[k] += n
	return out
}

// firstTurn opens a conversation with the bot, which also builds its
// agent: the turns counted after it are warm.
func (c *chatSetup) firstTurn(t *testing.T, botID string) string {
	t.Helper()
	events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
		"additional_messages": userMessage("hi")})
	return str(events[len(events)-2].obj(t), "conversation_id")
}

// turn runs one turn and returns its chat id once its last statement ran.
// A streamed turn's outcome is written before its final event, so its
// statements are all there when the stream ends; a non-streamed turn
// answers first and ends in the background.
func (c *chatSetup) turn(t *testing.T, log *statementLog, convID string, tc turnCase) string {
	t.Helper()
	body := map[string]any{"bot_id": tc.bot, "user_id": "u1", "stream": tc.stream, "additional_messages": userMessage(tc.text)}
	if !tc.stream {
		chat := c.s.call(t, "POST", "/v3/chat?conversation_id="+convID, bootstrapToken, body).must(t, 200)
		log.waitFor(t, "UPDATE chats")
		return str(chat.data, "id")
	}
	events := c.s.stream(t, "/v3/chat?conversation_id="+convID, bootstrapToken, body)
	if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
		t.Fatalf("events = %v", got)
	}
	if !slices.Contains(kindsOf(log.take()), "UPDATE chats") {
		t.Fatalf("the stream ended before the chat's outcome was written: %v", kindsOf(log.take()))
	}
	return str(events[len(events)-2].obj(t), "id")
}

// checkTurnStatements compares a turn's statements on turnTables with
// want, and bounds the rest: one membership read at most (the bot's), and
// no more than the identity and bot services spend without caches.
func checkTurnStatements(t *testing.T, sqls []string, want map[string]int) {
	t.Helper()
	got := turnStatements(sqls)
	if !maps.Equal(got, want) {
		t.Errorf("statements on %v = %v, want %v", turnTables, got, want)
	}
	members, mine := 0, 0
	for _, k := range kindsOf(sqls) {
		if k == "SELECT workspace_members" {
			members++
		}
	}
	for _, n := range got {
		mine += n
	}
	if members > 1 {
		t.Errorf("membership read %d times; the bot's check must be reused", members)
	}
	if others := len(sqls) - mine; others > othersAtMost {
		t.Errorf("%d statements outside the chat runtime's tables, want at most %d", others, othersAtMost)
	}
}
