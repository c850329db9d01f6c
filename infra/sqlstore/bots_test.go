package sqlstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/domain/variable"
)

func TestBotStore(t *testing.T) { forEachBackend(t, testBotStore) }

// fullBotConfig sets every field of a configuration, so a round trip through
// the JSON document loses nothing unnoticed.
func fullBotConfig(name string) bot.Config {
	temp, topP := 0.7, 0.9
	return bot.Config{
		Name: name, Description: "helps", IconURL: "https://x.io/i.png", Prompt: "You are {{name}}.",
		Model:     bot.ModelSettings{ModelID: "gpt", Temperature: &temp, TopP: &topP, MaxTokens: 512, ResponseFormat: "json"},
		Plugins:   []bot.PluginTool{{PluginID: 7, Tool: "search", Version: "3"}},
		Workflows: []bot.WorkflowRef{{WorkflowID: 8, Version: "2"}},
		Tables:    []bot.TableRef{{TableID: 9}},
		Variables: []variable.Definition{{Keyword: "name", Default: "Ada", Description: "the user's name", ShowInPrompt: true}},
		ClientTools: []bot.ClientTool{{Name: "weather", Description: "the weather", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"},
		}}},
		Onboarding:    bot.Onboarding{Prologue: "Hi", SuggestedQuestions: []string{"What?", "Why?"}},
		SuggestReply:  bot.SuggestReply{Enabled: true, Prompt: "short"},
		HistoryRounds: 7, MaxToolRounds: 3,
		Knowledge: bot.KnowledgeSettings{KnowledgeIDs: []int64{11, 12}, AutoCall: true, ShowSource: true, NoRecallReply: "No idea.",
			Retrieval: knowledge.Retrieval{Strategy: knowledge.StrategyHybrid, TopK: 4, MinScore: 0.25, RerankModel: "rr", Rewrite: true}},
		SubAgents: []bot.SubAgent{{BotID: 13, Description: "writes poems", ReturnDirectly: true}, {BotID: 14, Description: "checks facts"}},
		Handoffs:  []bot.Handoff{{BotID: 13, Description: "billing questions", Name: "Billing"}},
	}
}

// newStoredBot stores a bot named name in workspace ws.
func newStoredBot(t *testing.T, db *DB, ws, creator int64, name string) *bot.Bot {
	t.Helper()
	b := &bot.Bot{WorkspaceID: ws, CreatorID: creator, Draft: fullBotConfig(name)}
	mustNot(t, db.Bots().CreateBot(context.Background(), b))
	return b
}

func testBotStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Bots()
	ada := newUser(t, db, "ada@x.io")
	wsA := newWorkspace(t, db, "A", ada.ID)
	wsB := newWorkspace(t, db, "B", ada.ID)

	t.Run("create and get keep every field", func(t *testing.T) {
		b := newStoredBot(t, db, wsA.ID, ada.ID, "Full")
		if b.ID == 0 || b.DraftRevision != 1 || b.IsPublished() || b.CreatedAt.IsZero() {
			t.Fatalf("created bot = %+v", b)
		}
		got, err := store.GetBot(ctx, b.ID)
		mustNot(t, err)
		if diff := cmp.Diff(b, got); diff != "" {
			t.Errorf("GetBot (-created +got):\n%s", diff)
		}
		_, err = store.GetBot(ctx, 424242)
		wantErr(t, err, errs.ErrNotFound, "bot 424242 not found")
	})

	t.Run("create in an unknown workspace", func(t *testing.T) {
		err := store.CreateBot(ctx, &bot.Bot{WorkspaceID: 777, CreatorID: ada.ID, Draft: bot.Config{Name: "x"}})
		wantErr(t, err, errs.ErrNotFound, "workspace 777 not found")
	})

	t.Run("update", func(t *testing.T) { testBotUpdate(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("list", func(t *testing.T) { testBotList(t, db, ada.ID) })
	t.Run("publish", func(t *testing.T) { testBotPublish(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("concurrent publishes", func(t *testing.T) { testBotConcurrentPublish(t, db, wsA.ID, ada.ID) })
	t.Run("delete", func(t *testing.T) { testBotDelete(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("deleting the workspace deletes its bots", func(t *testing.T) {
		ws := newWorkspace(t, db, "Doomed", ada.ID)
		b := newStoredBot(t, db, ws.ID, ada.ID, "Doomed bot")
		mustNot(t, db.Workspaces().DeleteWorkspace(ctx, ws.ID))
		_, err := store.GetBot(ctx, b.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
	})
}

func testBotUpdate(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store := db.Bots()
	b := newStoredBot(t, db, ws, creator, "Before")
	db.now = func() time.Time { return time.Now().Add(time.Hour) }
	defer func() { db.now = time.Now }()

	got, err := store.UpdateBot(ctx, ws, b.ID, func(x *bot.Bot) error {
		x.Draft.Name, x.Draft.Variables = "After", nil
		x.WorkspaceID, x.CreatorID, x.PublishedVersion = otherWS, 99, 5 // ignored
		return nil
	})
	mustNot(t, err)
	want := *b
	want.Draft.Name, want.Draft.Variables = "After", nil
	want.DraftRevision, want.UpdatedAt = 2, got.UpdatedAt
	if diff := cmp.Diff(&want, got, cmpEmpty); diff != "" {
		t.Errorf("UpdateBot answer (-want +got):\n%s", diff)
	}
	if !got.UpdatedAt.After(b.UpdatedAt) {
		t.Errorf("UpdatedAt %v not after %v", got.UpdatedAt, b.UpdatedAt)
	}
	stored, _ := store.GetBot(ctx, b.ID)
	if diff := cmp.Diff(got, stored, cmpEmpty); diff != "" {
		t.Errorf("stored bot (-answer +stored):\n%s", diff)
	}

	_, err = store.UpdateBot(ctx, ws, b.ID, func(x *bot.Bot) error { x.Draft.Name = "Lost"; return errFromFn })
	if err != errFromFn {
		t.Fatalf("UpdateBot error = %v, want fn's own error", err)
	}
	again, _ := store.GetBot(ctx, b.ID)
	if diff := cmp.Diff(stored, again, cmpEmpty); diff != "" {
		t.Errorf("bot changed though fn failed (-before +after):\n%s", diff)
	}

	_, err = store.UpdateBot(ctx, otherWS, b.ID, func(*bot.Bot) error { return nil })
	wantErr(t, err, errs.ErrNotFound, "not found")
	_, err = store.UpdateBot(ctx, ws, 5555, func(*bot.Bot) error { return nil })
	wantErr(t, err, errs.ErrNotFound, "bot 5555 not found")
}

func testBotList(t *testing.T, db *DB, creator int64) {
	ctx := context.Background()
	store := db.Bots()
	ws := newWorkspace(t, db, "Lists", creator)
	other := newWorkspace(t, db, "Other", creator)
	newStoredBot(t, db, other.ID, creator, "elsewhere")
	var ids []int64
	for i, name := range []string{"one", "two", "three"} {
		db.now = func() time.Time { return time.Date(2025, 1, 1, 0, i, 0, 0, time.UTC) }
		ids = append(ids, newStoredBot(t, db, ws.ID, creator, name).ID)
	}
	db.now = time.Now
	mustNot(t, store.PublishBot(ctx, ws.ID, &bot.Version{BotID: ids[0], Config: bot.Config{Name: "one"}}))

	names := func(f bot.ListFilter, p identity.Page) ([]string, int64) {
		t.Helper()
		list, total, err := store.ListBots(ctx, ws.ID, f, p)
		mustNot(t, err)
		var out []string
		for _, b := range list {
			out = append(out, b.Draft.Name)
		}
		return out, total
	}
	if got, total := names(bot.ListFilter{}, identity.Page{}); !cmp.Equal(got, []string{"three", "two", "one"}) || total != 3 {
		t.Errorf("all bots = %v (%d), want newest first", got, total)
	}
	if got, total := names(bot.ListFilter{}, identity.Page{Number: 2, Size: 2}); !cmp.Equal(got, []string{"one"}) || total != 3 {
		t.Errorf("page 2 = %v (%d)", got, total)
	}
	if got, total := names(bot.ListFilter{PublishedOnly: true}, identity.Page{Number: 1, Size: 10}); !cmp.Equal(got, []string{"one"}) || total != 1 {
		t.Errorf("published = %v (%d)", got, total)
	}
}

func testBotPublish(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store := db.Bots()
	b := newStoredBot(t, db, ws, creator, "Pub")

	v1 := &bot.Version{BotID: b.ID, Config: b.Draft, Connectors: []string{"1024"}, PublisherID: creator}
	mustNot(t, store.PublishBot(ctx, ws, v1))
	v2 := &bot.Version{BotID: b.ID, Config: b.Draft, Connectors: []string{"1024", "999"}, PublisherID: creator}
	mustNot(t, store.PublishBot(ctx, ws, v2))
	if v1.Number != 1 || v2.Number != 2 || v2.Label() != "2" {
		t.Fatalf("numbers = %d, %d; want 1, 2", v1.Number, v2.Number)
	}
	got, _ := store.GetBot(ctx, b.ID)
	if got.PublishedVersion != 2 || got.PublishedAt == nil || !got.PublishedAt.Equal(v2.CreatedAt) {
		t.Errorf("bot after publish: version %d at %v, want 2 at %v", got.PublishedVersion, got.PublishedAt, v2.CreatedAt)
	}
	if got.DraftRevision != b.DraftRevision || !got.UpdatedAt.Equal(b.UpdatedAt) {
		t.Errorf("publish touched the draft: revision %d, updated %v", got.DraftRevision, got.UpdatedAt)
	}

	// Editing the draft leaves the published versions as they were.
	_, err := store.UpdateBot(ctx, ws, b.ID, func(x *bot.Bot) error { x.Draft.Prompt = "changed"; return nil })
	mustNot(t, err)
	stored, err := store.GetVersion(ctx, b.ID, 1)
	mustNot(t, err)
	if diff := cmp.Diff(v1, stored, cmpEmpty); diff != "" {
		t.Errorf("version 1 (-published +stored):\n%s", diff)
	}
	list, err := store.ListVersions(ctx, b.ID)
	mustNot(t, err)
	if len(list) != 2 || list[0].Number != 2 || list[1].Number != 1 || !cmp.Equal(list[0].Connectors, []string{"1024", "999"}) {
		t.Errorf("ListVersions = %+v, want 2 then 1", list)
	}

	_, err = store.GetVersion(ctx, b.ID, 3)
	wantErr(t, err, errs.ErrNotFound, "version 3 of bot")
	err = store.PublishBot(ctx, otherWS, &bot.Version{BotID: b.ID, Config: b.Draft})
	wantErr(t, err, errs.ErrNotFound, "not found")
	if list, _ := store.ListVersions(ctx, b.ID); len(list) != 2 {
		t.Errorf("a refused publish stored a version: %d versions", len(list))
	}
}

func testBotConcurrentPublish(t *testing.T, db *DB, ws, creator int64) {
	ctx := context.Background()
	store := db.Bots()
	b := newStoredBot(t, db, ws, creator, "Busy")
	const n = 8
	numbers := make([]int64, n)
	errors := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			v := &bot.Version{BotID: b.ID, Config: b.Draft, Connectors: []string{"1024"}}
			errors[i] = store.PublishBot(ctx, ws, v)
			numbers[i] = v.Number
		})
	}
	wg.Wait()
	seen := map[int64]bool{}
	for i := range n {
		mustNot(t, errors[i])
		if numbers[i] < 1 || numbers[i] > n || seen[numbers[i]] {
			t.Errorf("publish %d got number %d; numbers = %v", i, numbers[i], numbers)
		}
		seen[numbers[i]] = true
	}
	got, _ := store.GetBot(ctx, b.ID)
	if got.PublishedVersion != n {
		t.Errorf("PublishedVersion = %d, want %d", got.PublishedVersion, n)
	}
}

func testBotDelete(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store := db.Bots()
	b := newStoredBot(t, db, ws, creator, "Gone")
	keep := newStoredBot(t, db, ws, creator, "Kept")
	for _, id := range []int64{b.ID, keep.ID} {
		mustNot(t, store.PublishBot(ctx, ws, &bot.Version{BotID: id, Config: b.Draft}))
		mustNot(t, db.Variables().SetValues(ctx, variable.Scope{BotID: id, ConnectorID: "1024", UserID: "u"}, []variable.KV{{Keyword: "name", Value: "x"}}))
	}

	wantErr(t, store.DeleteBot(ctx, otherWS, b.ID), errs.ErrNotFound, "not found")
	mustNot(t, store.DeleteBot(ctx, ws, b.ID))
	_, err := store.GetBot(ctx, b.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")
	if list, _ := store.ListVersions(ctx, b.ID); len(list) != 0 {
		t.Errorf("versions left after delete: %d", len(list))
	}
	if vals, _ := db.Variables().GetValues(ctx, variable.Scope{BotID: b.ID, ConnectorID: "1024", UserID: "u"}, nil); len(vals) != 0 {
		t.Errorf("values left after delete: %v", vals)
	}
	wantErr(t, store.DeleteBot(ctx, ws, b.ID), errs.ErrNotFound, "not found")

	if list, _ := store.ListVersions(ctx, keep.ID); len(list) != 1 {
		t.Errorf("the other bot lost its versions: %d left", len(list))
	}
	if vals, _ := db.Variables().GetValues(ctx, variable.Scope{BotID: keep.ID, ConnectorID: "1024", UserID: "u"}, nil); len(vals) != 1 {
		t.Errorf("the other bot lost its values: %v", vals)
	}
}
