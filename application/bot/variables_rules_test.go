package bot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	botapp "github.com/pergola-ai/pergola/application/bot"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/variable"
)

// values returns keyword=value of an end user's variables.
func values(t *testing.T, e *env, botID int64, u botapp.EndUser, keywords ...string) map[string]string {
	t.Helper()
	items, err := e.svc.UserVariables(context.Background(), e.member, botID, u, keywords)
	mustNot(t, err)
	out := map[string]string{}
	for _, it := range items {
		out[it.Keyword] = it.Value
	}
	return out
}

func TestUserVariables(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, withVariables("Mem"))
	ada := botapp.EndUser{UserID: "ada"}

	items, err := e.svc.UserVariables(ctx, e.member, b.ID, ada, nil)
	mustNot(t, err)
	if len(items) != 2 || items[0] != (botapp.VariableItem{Keyword: "city", Value: "Paris"}) || items[1].Keyword != "mood" {
		t.Fatalf("defaults = %+v, want city=Paris and mood, with zero times", items)
	}

	mustNot(t, e.svc.SetUserVariables(ctx, e.member, b.ID, ada, []variable.KV{{Keyword: "mood", Value: "calm"}}))
	items, _ = e.svc.UserVariables(ctx, e.member, b.ID, ada, []string{"mood", "unknown"})
	if len(items) != 1 || items[0].Value != "calm" || items[0].CreatedAt.IsZero() || items[0].UpdatedAt.IsZero() {
		t.Errorf("mood = %+v, want the stored value with its times", items)
	}
	if got := values(t, e, b.ID, botapp.EndUser{UserID: "ada", ConnectorID: "999"}); got["mood"] != "" {
		t.Errorf("the chat SDK connector sees mood = %q", got["mood"])
	}
	if got := values(t, e, b.ID, botapp.EndUser{UserID: "bob"}); got["mood"] != "" {
		t.Errorf("another user sees mood = %q", got["mood"])
	}

	mustNot(t, e.svc.ResetUserVariables(ctx, e.owner, b.ID, ada, nil))
	if got := values(t, e, b.ID, ada); !cmp.Equal(got, map[string]string{"city": "Paris", "mood": ""}) {
		t.Errorf("after reset: %v, want the defaults", got)
	}
}

func TestSetUserVariablesRefuses(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, withVariables("Strict"))
	ada := botapp.EndUser{UserID: "ada"}
	cases := []struct {
		name         string
		u            botapp.EndUser
		kvs          []variable.KV
		field, words string
	}{
		{"undefined keyword", ada, []variable.KV{{Keyword: "city", Value: "Oslo"}, {Keyword: "age", Value: "3"}},
			"data[1].keyword", `"age" is not a variable of bot`},
		{"long value", ada, []variable.KV{{Keyword: "city", Value: strings.Repeat("x", variable.MaxValueLen+1)}},
			"data[0].value", "at most"},
		{"nothing", ada, nil, "data", "1 to 100"},
		{"no user", botapp.EndUser{}, []variable.KV{{Keyword: "city", Value: "Oslo"}}, "user_id", "required"},
		{"long user", botapp.EndUser{UserID: strings.Repeat("u", 256)}, []variable.KV{{Keyword: "city", Value: "Oslo"}}, "user_id", "at most 255"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantField(t, e.svc.SetUserVariables(ctx, e.owner, b.ID, c.u, c.kvs), c.field, c.words)
		})
	}
	if got := values(t, e, b.ID, ada); got["city"] != "Paris" {
		t.Errorf("a refused write changed city to %q", got["city"])
	}
}

// TestVariablesOfThePublishedVersionStayReachable renames a variable in the
// draft of a published bot: the running version's keyword can still be
// read and written.
func TestVariablesOfThePublishedVersionStayReachable(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, withVariables("Renamed"))
	_, err := e.svc.Publish(ctx, e.owner, b.ID, nil)
	mustNot(t, err)
	_, err = e.svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error { c.Variables[0].Keyword = "town"; return nil })
	mustNot(t, err)
	ada := botapp.EndUser{UserID: "ada"}
	mustNot(t, e.svc.SetUserVariables(ctx, e.owner, b.ID, ada, []variable.KV{{Keyword: "city", Value: "Oslo"}, {Keyword: "town", Value: "Bergen"}}))
	if got := values(t, e, b.ID, ada); !cmp.Equal(got, map[string]string{"town": "Bergen", "mood": "", "city": "Oslo"}) {
		t.Errorf("values = %v", got)
	}
}

func TestRuntimeVariables(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, withVariables("Runtime"))
	defs := b.Draft.Variables
	sc := variable.Scope{BotID: b.ID, UserID: "ada"} // the API connector by default

	got, err := e.svc.VariableValues(ctx, sc, defs)
	mustNot(t, err)
	if !cmp.Equal(got, map[string]string{"city": "Paris", "mood": ""}) {
		t.Errorf("values = %v, want the defaults", got)
	}
	accepted, refused, err := e.svc.SetVariables(ctx, sc, defs, []variable.KV{{Keyword: "mood", Value: "glad"}, {Keyword: "nope", Value: "x"}})
	mustNot(t, err)
	if !cmp.Equal(accepted, []variable.KV{{Keyword: "mood", Value: "glad"}}) || !cmp.Equal(refused, []string{"nope"}) {
		t.Errorf("accepted %v refused %v", accepted, refused)
	}
	if got := values(t, e, b.ID, botapp.EndUser{UserID: "ada", ConnectorID: "1024"}); got["mood"] != "glad" {
		t.Errorf("the API sees mood = %q, want glad", got["mood"])
	}
	if got, _ := e.svc.VariableValues(ctx, sc, nil); len(got) != 0 {
		t.Errorf("values without definitions = %v", got)
	}
}
