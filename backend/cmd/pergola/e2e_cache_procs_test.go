package main

import (
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// staleBound is how long after a change returns another process may still
// act on what it had cached: the hub's lease (cacheLease, 750ms) after
// Redis received the invalidation, which it had before the change
// answered. It is the only time these tests assert.
const staleBound = time.Second

// TestCacheTwoProcessesSeeEachOthersChanges runs two pergola processes on
// one MariaDB database and one Redis, each with its own caches. With both
// warm, a token revoked on a is refused on b, a member removed on a loses
// access on b, and a bot published again on a answers with its new version
// on b: each within staleBound of the change's answer on a.
func TestCacheTwoProcessesSeeEachOthersChanges(t *testing.T) {
	bin := buildPergola(t)
	llm := personaModel(t)
	env := map[string]string{"PERGOLA_DB_DSN": testenv.MySQL(t), "PERGOLA_REDIS_ADDR": testenv.RedisAddr(t),
		"PERGOLA_REDIS_PREFIX": testenv.RedisPrefix(t, 0), "PERGOLA_SECRET_KEY": secret.GenerateKey(), "PERGOLA_RATE_LIMIT": "0"}
	a := startProcess(t, bin, env)
	waitFor(t, "the first process to bootstrap the database", func() bool { st, _, _ := rawStatus(a.testServer, "/readyz"); return st == 200 })
	b := startProcess(t, bin, env) // after a: two processes bootstrapping one empty database at once race
	forgetConnections()
	c := newCacheCluster(t, a.testServer, b.testServer, llm)

	t.Run("revoked token", func(t *testing.T) {
		pat := a.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "soon revoked"}).must(t, 201)
		secretText, id := str(pat.data, "token"), str(pat.data, "id")
		c.warm(t, "GET", "/v1/users/me", secretText, nil)
		a.call(t, "DELETE", "/api/tokens/"+id, bootstrapToken, nil).must(t, 200)
		c.refusedOnB(t, "the revoked token", func() reply { return b.call(t, "GET", "/v1/users/me", secretText, nil) }, 401)
	})
	t.Run("removed member", func(t *testing.T) {
		path := "/api/workspaces/" + c.team
		c.warm(t, "GET", path, c.miaToken, nil)
		a.call(t, "DELETE", path+"/members/"+c.miaID, bootstrapToken, nil).must(t, 200)
		c.refusedOnB(t, "the removed member", func() reply { return b.call(t, "GET", path, c.miaToken, nil) }, 403)
	})
	t.Run("new publish", func(t *testing.T) {
		bot := cozeBot(t, a.testServer, c.personal, map[string]any{"name": "Persona",
			"prompt_info": map[string]any{"prompt": "Persona one."}, "model_info_config": map[string]any{"model_id": "fake"}})
		a.call(t, "POST", "/v1/bot/publish", bootstrapToken, map[string]any{"bot_id": bot}).must(t, 200)
		for _, s := range []*testServer{a.testServer, b.testServer} {
			for range 2 {
				if got := personaOf(t, s, bot); !strings.Contains(got, "Persona one.") {
					t.Fatalf("the first version answers %q", got)
				}
			}
		}
		a.call(t, "POST", "/v1/bot/update", bootstrapToken, map[string]any{"bot_id": bot, "prompt_info": map[string]any{"prompt": "Persona two."}}).must(t, 200)
		a.call(t, "POST", "/v1/bot/publish", bootstrapToken, map[string]any{"bot_id": bot}).must(t, 200)
		c.untilOnB(t, "the new version", func() bool { return strings.Contains(personaOf(t, b.testServer, bot), "Persona two.") })
	})
}

// cacheCluster is the state the two-process tests share: a team workspace
// on a with mia, a member, and her token.
type cacheCluster struct {
	a, b           *testServer
	llm            *fakellm.Server
	team, personal string
	miaID          string
	miaToken       string
}

func newCacheCluster(t *testing.T, a, b *testServer, llm *fakellm.Server) *cacheCluster {
	t.Helper()
	a.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai", "base_url": llm.BaseURL(),
		"api_key": "k", "model": "fake"}).must(t, 201)
	c := &cacheCluster{a: a, b: b, llm: llm}
	c.personal = str(items(t, a.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	c.team = str(a.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Team"}).must(t, 201).data, "id")
	mia := a.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "mia@example.com", "name": "Mia",
		"password": "mia-password-1"}).must(t, 201)
	user, _ := mia.data["user"].(map[string]any)
	c.miaID = str(user, "id")
	a.call(t, "POST", "/api/workspaces/"+c.team+"/members", bootstrapToken, map[string]any{"email": "mia@example.com", "role": "member"}).must(t, 201)
	login := a.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "mia@example.com", "password": "mia-password-1"}).must(t, 200)
	c.miaToken = str(login.data, "token")
	return c
}

// warm makes the request on both processes, twice, so both have cached
// what it reads.
func (c *cacheCluster) warm(t *testing.T, method, path, token string, body any) {
	t.Helper()
	for _, s := range []*testServer{c.a, c.b} {
		for range 2 {
			s.call(t, method, path, token, body).must(t, 200)
		}
	}
}

// refusedOnB polls b until call answers status (with the auth or access
// error code), as untilOnB does.
func (c *cacheCluster) refusedOnB(t *testing.T, what string, call func() reply, status int) {
	t.Helper()
	c.untilOnB(t, what+" refused", func() bool {
		r := call()
		switch {
		case r.status == status:
			return true
		case r.status != 200:
			t.Fatalf("%s: b answered %d %q, want 200 (stale) or %d", what, r.status, r.msg, status)
		}
		return false
	})
}

// untilOnB polls done until it holds, for a generous 15s; but done must
// hold for every poll sent more than staleBound after the change answered
// (the time this is called). It logs how long b took.
func (c *cacheCluster) untilOnB(t *testing.T, what string, done func() bool) {
	t.Helper()
	changed := time.Now()
	for polls := 1; ; polls++ {
		sent := time.Now()
		if done() {
			t.Logf("%s on the other process: poll %d, sent %s and answered %s after the change answered", what, polls,
				sent.Sub(changed).Round(time.Microsecond), time.Since(changed).Round(time.Microsecond))
			return
		}
		if late := sent.Sub(changed); late > staleBound {
			t.Fatalf("%s: a request sent %s after the change (bound %s) was still served the old state", what, late, staleBound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// personaModel is the fake model answering with the persona (the system
// prompt) it was given, so a chat shows which bot version ran.
func personaModel(t *testing.T) *fakellm.Server {
	t.Helper()
	llm := fakellm.New()
	if _, err := llm.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	llm.When(func(r fakellm.Request) bool { return r.LastUserText() == "who are you?" }, func(r fakellm.Request) fakellm.Reply {
		for _, m := range r.Messages {
			if m.Role == "system" {
				return fakellm.Text("I am told: " + m.Content)
			}
		}
		return fakellm.Text("I am told nothing")
	})
	return llm
}

// personaOf chats with bot on s and returns the answer.
func personaOf(t *testing.T, s *testServer, bot string) string {
	t.Helper()
	events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": bot, "user_id": "u", "stream": true,
		"additional_messages": userMessage("who are you?")})
	_, completed := chatParts(t, events)
	answers := completedOfType(completed, "answer")
	if len(answers) != 1 {
		t.Fatalf("chat events %v; want one answer", names(events))
	}
	return answers[0]
}
