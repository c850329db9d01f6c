package conversation_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

func TestCreatePicksTheWorkspace(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		p      identity.Principal
		bot    int64
		wantWS int64
	}{
		{"no bot: the personal workspace", caller(ada), 0, wsAda},
		{"no bot, token of one workspace: that one", caller(ada, wsTeam), 0, wsTeam},
		{"no bot, token of several: the personal one", caller(ada, wsTeam, wsAda), 0, wsAda},
		{"a bot: its workspace", caller(ada), botTeam, wsTeam},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := e.conv(t, tc.p, convapp.CreateInput{BotID: tc.bot})
			if c.WorkspaceID != tc.wantWS || c.BotID != tc.bot || c.CreatorID != tc.p.UserID || c.ConnectorID != "1024" {
				t.Errorf("created %+v; want workspace %d, bot %d, connector 1024", c, tc.wantWS, tc.bot)
			}
		})
	}
}

func TestCreateRefuses(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, bot := range []int64{botNonexistent, botBob} {
		_, err := e.svc.Create(ctx, caller(ada), convapp.CreateInput{BotID: bot})
		wantErr(t, err, errs.ErrNotFound, fmt.Sprintf("bot %d not found", bot))
	}
	_, err := e.svc.Create(ctx, caller(ada, wsBob), convapp.CreateInput{})
	wantErr(t, err, errs.ErrForbidden, "not a member")
	_, err = e.svc.Create(ctx, caller(ada, wsTeam, wsBob), convapp.CreateInput{})
	wantErr(t, err, errs.ErrForbidden, "not valid for workspace")
	_, err = e.svc.Create(ctx, identity.Principal{UserID: 77, Scopes: []string{identity.ScopeAll}}, convapp.CreateInput{})
	wantField(t, err, "bot_id")
	_, err = e.svc.Create(ctx, identity.Principal{UserID: ada, Scopes: []string{identity.ScopeBot}}, convapp.CreateInput{})
	wantErr(t, err, errs.ErrForbidden, `"chat" scope`)
}

func TestCreateStoresTheFirstMessages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	image := `[{"type":"text","text":"look"},{"type":"image","file_url":"https://example.com/a.png"}]`
	c := e.conv(t, caller(ada), convapp.CreateInput{
		BotID: botTeam, MetaData: map[string]string{"k": "v"},
		Messages: []convapp.MessageInput{
			{Role: "user", Content: image, ContentType: "object_string", MetaData: map[string]string{"m": "1"}},
			{Role: "assistant", Content: "a picture", Type: "answer"},
			{Role: "user", Content: "thanks"},
		},
	})
	if c.MetaData["k"] != "v" {
		t.Errorf("meta data = %v", c.MetaData)
	}
	list, more, err := e.svc.ListMessages(ctx, caller(ada), c.ID, conversation.MessageQuery{Order: "asc", Limit: 10})
	must(t, err)
	type row struct{ Role, Type, ContentType, Content string }
	var got []row
	for _, m := range list {
		if m.SectionID != c.SectionID || m.BotID != botTeam || m.WorkspaceID != wsTeam {
			t.Errorf("message %+v is not in the conversation's section, bot and workspace", m)
		}
		got = append(got, row{m.Role, m.Type, m.ContentType, m.Content})
	}
	want := []row{
		{"user", "question", "object_string", image},
		{"assistant", "answer", "text", "a picture"},
		{"user", "question", "text", "thanks"},
	}
	if diff := cmp.Diff(want, got); diff != "" || more {
		t.Errorf("more %v; messages (-want +got):\n%s", more, diff)
	}
}

func TestValidateMessages(t *testing.T) {
	long := strings.Repeat("x", 65)
	tooMany := map[string]string{}
	for i := range 17 {
		tooMany[fmt.Sprint(i)] = "v"
	}
	tests := []struct {
		name  string
		msg   convapp.MessageInput
		field string
	}{
		{"unknown role", convapp.MessageInput{Role: "system", Content: "x"}, "messages[1].role"},
		{"user answer", convapp.MessageInput{Role: "user", Type: "answer", Content: "x"}, "messages[1].type"},
		{"assistant question", convapp.MessageInput{Role: "assistant", Type: "question", Content: "x"}, "messages[1].type"},
		{"empty text", convapp.MessageInput{Role: "user", Content: "  "}, "messages[1].content"},
		{"bad content type", convapp.MessageInput{Role: "user", Content: "x", ContentType: "image"}, "messages[1].content_type"},
		{"object_string not an array", convapp.MessageInput{Role: "user", Content: "hello", ContentType: "object_string"}, "messages[1].content"},
		{"object_string an object", convapp.MessageInput{Role: "user", Content: `{"type":"text"}`, ContentType: "object_string"}, "messages[1].content"},
		{"object_string empty", convapp.MessageInput{Role: "user", Content: `[]`, ContentType: "object_string"}, "messages[1].content"},
		{"object_string bad item type", convapp.MessageInput{Role: "user", Content: `[{"type":"video","file_id":"f"}]`, ContentType: "object_string"}, "messages[1].content"},
		{"object_string file without id or url", convapp.MessageInput{Role: "user", Content: `[{"type":"file"}]`, ContentType: "object_string"}, "messages[1].content"},
		{"object_string text item without text", convapp.MessageInput{Role: "user", Content: `[{"type":"text"}]`, ContentType: "object_string"}, "messages[1].content"},
		{"too many meta keys", convapp.MessageInput{Role: "user", Content: "x", MetaData: tooMany}, "messages[1].meta_data"},
		{"meta key too long", convapp.MessageInput{Role: "user", Content: "x", MetaData: map[string]string{long: "v"}}, "messages[1].meta_data"},
		{"meta value too long", convapp.MessageInput{Role: "user", Content: "x", MetaData: map[string]string{"k": strings.Repeat("v", 513)}}, "messages[1].meta_data"},
	}
	ok := convapp.MessageInput{Role: "user", Content: "fine"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantField(t, convapp.ValidateMessages("messages", []convapp.MessageInput{ok, tc.msg}), tc.field)
		})
	}
	t.Run("valid ones pass", func(t *testing.T) {
		valid := []convapp.MessageInput{
			ok, {Role: "assistant", Content: "{}", ContentType: "card"},
			{Role: "user", ContentType: "object_string", Content: `[{"type":"file","file_id":"f1"},{"type":"audio","file_url":"u"}]`},
			{Role: "user", Type: "question", Content: "x", MetaData: map[string]string{"k": strings.Repeat("v", 512)}},
		}
		must(t, convapp.ValidateMessages("additional_messages", valid))
	})
}

func TestCreateValidatesBeforeStoring(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tooMany := map[string]string{}
	for i := range 17 {
		tooMany[fmt.Sprint(i)] = "v"
	}
	bad := []struct {
		in    convapp.CreateInput
		field string
	}{
		{convapp.CreateInput{MetaData: tooMany}, "meta_data"},
		{convapp.CreateInput{ConnectorID: strings.Repeat("9", 65)}, "connector_id"},
		{convapp.CreateInput{Messages: []convapp.MessageInput{{Role: "user", Content: "x", ContentType: "nope"}}}, "messages[0].content_type"},
	}
	for _, tc := range bad {
		_, err := e.svc.Create(ctx, caller(ada), tc.in)
		wantField(t, err, tc.field)
	}
	list, _, err := e.db.Conversations().ListConversations(ctx, wsAda, conversation.Filter{}, identity.Page{})
	must(t, err)
	if len(list) != 0 {
		t.Errorf("%d conversations stored by refused creates", len(list))
	}
}
