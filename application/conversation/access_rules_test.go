package conversation_test

import (
	"context"
	"fmt"
	"testing"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// TestUnreachableConversationIsNotFound shows that every use case answers
// for a conversation of another tenant exactly as for an unknown one, and
// changes nothing.
func TestUnreachableConversationIsNotFound(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.conv(t, caller(ada), convapp.CreateInput{BotID: botTeam,
		Messages: []convapp.MessageInput{text("user", "q"), text("assistant", "a")}})
	msgs, _, err := e.svc.ListMessages(ctx, caller(ada), c.ID, conversation.MessageQuery{Order: "asc", Limit: 5})
	must(t, err)
	answer := msgs[1].ID
	content := "hacked"
	uses := map[string]func(p identity.Principal, id int64) error{
		"get":    func(p identity.Principal, id int64) error { _, err := e.svc.Get(ctx, p, id); return err },
		"rename": func(p identity.Principal, id int64) error { _, err := e.svc.Rename(ctx, p, id, "mine"); return err },
		"delete": func(p identity.Principal, id int64) error { return e.svc.Delete(ctx, p, id) },
		"clear":  func(p identity.Principal, id int64) error { _, err := e.svc.Clear(ctx, p, id); return err },
		"create message": func(p identity.Principal, id int64) error {
			_, err := e.svc.CreateMessage(ctx, p, id, text("user", "x"))
			return err
		},
		"list messages": func(p identity.Principal, id int64) error {
			_, _, err := e.svc.ListMessages(ctx, p, id, conversation.MessageQuery{Limit: 5})
			return err
		},
		"get message": func(p identity.Principal, id int64) error { _, err := e.svc.GetMessage(ctx, p, id, answer); return err },
		"update message": func(p identity.Principal, id int64) error {
			_, err := e.svc.UpdateMessage(ctx, p, id, answer, convapp.MessagePatch{Content: &content})
			return err
		},
		"delete message": func(p identity.Principal, id int64) error {
			_, err := e.svc.DeleteMessage(ctx, p, id, answer)
			return err
		},
		"feedback": func(p identity.Principal, id int64) error {
			return e.svc.SetFeedback(ctx, p, id, answer, convapp.FeedbackInput{Type: "like"})
		},
		"delete feedback": func(p identity.Principal, id int64) error { return e.svc.DeleteFeedback(ctx, p, id, answer) },
		"resolve": func(p identity.Principal, id int64) error {
			_, err := e.svc.ResolveConversation(ctx, p, id, botTeam, "")
			return err
		},
	}
	outsiders := map[string]identity.Principal{
		"another user":                 caller(bob),
		"a token of another workspace": caller(ada, wsAda),
	}
	for name, use := range uses {
		for who, p := range outsiders {
			t.Run(name+" by "+who, func(t *testing.T) {
				wantErr(t, use(p, c.ID), errs.ErrNotFound, fmt.Sprintf("conversation %d not found", c.ID))
				wantErr(t, use(p, 4242), errs.ErrNotFound, "conversation 4242 not found")
			})
		}
	}
	got, err := e.svc.GetMessage(ctx, caller(ada), c.ID, answer)
	must(t, err)
	if got.Content != "a" || got.Feedback != nil {
		t.Errorf("the answer changed: %+v", got)
	}
	conv, err := e.svc.Get(ctx, caller(ada), c.ID)
	must(t, err)
	if conv.Name != "" || conv.SectionID != c.SectionID {
		t.Errorf("the conversation changed: %+v", conv)
	}
	_, err = e.svc.Get(ctx, identity.Principal{UserID: ada, Scopes: []string{identity.ScopeBot}}, c.ID)
	wantErr(t, err, errs.ErrForbidden, `"chat" scope`)
}

func TestListRenameClearDelete(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	me := caller(ada)
	var made []int64
	for range 3 {
		made = append(made, e.conv(t, me, convapp.CreateInput{BotID: botTeam}).ID)
	}
	e.conv(t, me, convapp.CreateInput{}) // no bot: not listed

	page, more, err := e.svc.List(ctx, me, botTeam, identity.Page{Number: 1, Size: 2})
	must(t, err)
	if len(page) != 2 || !more || page[0].ID != made[2] {
		t.Errorf("first page: %d, more %v", len(page), more)
	}
	_, _, err = e.svc.List(ctx, me, 0, identity.Page{Number: 1, Size: 2})
	wantField(t, err, "bot_id")
	_, _, err = e.svc.List(ctx, me, botBob, identity.Page{Number: 1, Size: 2})
	wantErr(t, err, errs.ErrNotFound, fmt.Sprintf("bot %d not found", botBob))

	renamed, err := e.svc.Rename(ctx, me, made[0], "  Holidays ")
	must(t, err)
	if renamed.Name != "Holidays" {
		t.Errorf("name = %q", renamed.Name)
	}
	for _, name := range []string{"", "   ", string(make([]rune, 201))} {
		_, err := e.svc.Rename(ctx, me, made[0], name)
		wantField(t, err, "name")
	}

	section, err := e.svc.Clear(ctx, me, made[0])
	must(t, err)
	if got, _ := e.svc.Get(ctx, me, made[0]); section == renamed.SectionID || got.SectionID != section {
		t.Errorf("clear gave section %d; stored %d; before %d", section, got.SectionID, renamed.SectionID)
	}

	must(t, e.svc.Delete(ctx, me, made[0]))
	_, err = e.svc.Get(ctx, me, made[0])
	wantErr(t, err, errs.ErrNotFound, "not found")
}

func TestResolveConversation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	me := caller(ada)
	bound := e.conv(t, me, convapp.CreateInput{BotID: botTeam})
	free := e.conv(t, me, convapp.CreateInput{})

	made, err := e.svc.ResolveConversation(ctx, me, 0, botTeam, "999")
	must(t, err)
	if made.ID == 0 || made.BotID != botTeam || made.WorkspaceID != wsTeam || made.ConnectorID != "999" {
		t.Errorf("new conversation = %+v", made)
	}
	for _, id := range []int64{bound.ID, free.ID} {
		got, err := e.svc.ResolveConversation(ctx, me, id, botTeam, "")
		if err != nil || got.ID != id {
			t.Errorf("resolve %d = %v, %v", id, got, err)
		}
	}
	_, err = e.svc.ResolveConversation(ctx, me, bound.ID, 555, "")
	wantField(t, err, "conversation_id")
	_, err = e.svc.ResolveConversation(ctx, me, 0, 0, "")
	wantField(t, err, "bot_id")
	_, err = e.svc.ResolveConversation(ctx, me, 0, botBob, "")
	wantErr(t, err, errs.ErrNotFound, fmt.Sprintf("bot %d not found", botBob))
}
