package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/feishu/feishufake"
)

// feishuSetup is a bot published to a Feishu channel with an encrypt
// key (events encrypted and signed) and a Lark channel without one
// (events in the clear, checked by their token), both apps served by one
// fake Open Platform.
type feishuSetup struct {
	*chatSetup
	fake         *feishufake.Server
	botID        string
	fsID, lkID   string
	fsURL, lkURL string
	fsSub, lkSub feishufake.Subscription
	fsApp, lkApp feishufake.App
}

func newFeishuSetup(t *testing.T, b backend) *feishuSetup {
	t.Helper()
	c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
	f := &feishuSetup{chatSetup: c,
		fsApp: feishufake.App{ID: "cli_e2efeishu01", Secret: "feishu-e2e-app-secret", BotOpenID: "ou_botfeishu", BotName: "Pergola"},
		lkApp: feishufake.App{ID: "cli_e2elark0001", Secret: "lark-e2e-app-secret00", BotOpenID: "ou_botlark", BotName: "Pergola"},
		fsSub: feishufake.Subscription{VerificationToken: "fs-verification-token-42", EncryptKey: "fs-encrypt-key-42"},
		lkSub: feishufake.Subscription{VerificationToken: "lk-verification-token-42"}}
	f.fake = feishufake.New(t, f.fsApp, f.lkApp)
	f.botID = str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Feishu",
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	fs := f.create(t, "feishu", map[string]any{"app_id": f.fsApp.ID, "app_secret": f.fsApp.Secret,
		"verification_token": f.fsSub.VerificationToken, "encrypt_key": f.fsSub.EncryptKey, "api_base_url": f.fake.URL})
	lk := f.create(t, "lark", map[string]any{"app_id": f.lkApp.ID, "app_secret": f.lkApp.Secret,
		"verification_token": f.lkSub.VerificationToken, "api_base_url": f.fake.URL})
	f.fsID, f.fsURL, f.lkID, f.lkURL = str(fs, "id"), str(fs, "webhook_url"), str(lk, "id"), str(lk, "webhook_url")
	c.s.call(t, "POST", "/api/bots/"+f.botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{f.fsID, f.lkID}}).must(t, 201)
	return f
}

func (f *feishuSetup) create(t *testing.T, kind string, settings map[string]any) map[string]any {
	t.Helper()
	return f.s.call(t, "POST", "/api/bots/"+f.botID+"/channels", bootstrapToken, map[string]any{"kind": kind, "settings": settings}).must(t, 201).data
}

// replies is what the fake shows in reply to messageID: each reply, as
// it reads after its edits (answers stream).
func (f *feishuSetup) replies(messageID string) []feishufake.Reply {
	var out []feishufake.Reply
	for _, r := range f.fake.Replies() {
		if r.MessageID == messageID {
			r.Text, _ = f.fake.Text(r.ID)
			out = append(out, r)
		}
	}
	return out
}

// push sends event as the platform does and wants 200.
func (f *feishuSetup) push(t *testing.T, sub feishufake.Subscription, url string, event []byte) []byte {
	t.Helper()
	status, raw, err := sub.Push(context.Background(), http.DefaultClient, url, event)
	if err != nil || status != 200 {
		t.Fatalf("push %s: %d %s %v; want 200", event, status, raw, err)
	}
	return raw
}

// TestChannelsFeishu runs Feishu and Lark channels end to end on both
// back ends against a local fake of the Open Platform: credentials
// checked on creation, the url_verification challenge (encrypted and
// in the clear), signed and encrypted events verified, each message
// answered once with the reply API, group mention rules, and a revoked
// tenant token fetched again.
func TestChannelsFeishu(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			f := newFeishuSetup(t, b)
			t.Run("bad app secret", func(t *testing.T) { feishuBadSecret(t, f) })
			t.Run("feishu encrypted", func(t *testing.T) { feishuEncrypted(t, f) })
			t.Run("lark groups", func(t *testing.T) { larkGroups(t, f) })
		})
	}
}

func feishuBadSecret(t *testing.T, f *feishuSetup) {
	got := f.s.call(t, "POST", "/api/bots/"+f.botID+"/channels", bootstrapToken, map[string]any{"kind": "lark", "settings": map[string]any{
		"app_id": f.lkApp.ID, "app_secret": "not-the-app-secret", "verification_token": "x-token", "api_base_url": f.fake.URL}})
	if got.status != 400 || !strings.HasPrefix(got.msg, "settings.app_secret: was refused") || !strings.Contains(got.msg, "code 10014: app secret invalid") {
		t.Fatalf("a refused app_secret answered %d %q; want 400 naming settings.app_secret with the platform's code", got.status, got.msg)
	}
}

func feishuEncrypted(t *testing.T, f *feishuSetup) {
	// The console's challenge comes encrypted but unsigned.
	status, raw := postRaw(t, f.fsURL, feishufake.Encrypt(f.fsSub.EncryptKey, f.fsSub.Challenge("chal-feishu-1")), nil)
	var echoed map[string]any
	if _ = json.Unmarshal(raw, &echoed); status != 200 || str(echoed, "challenge") != "chal-feishu-1" {
		t.Fatalf("encrypted url_verification answered %d %s; want the challenge", status, raw)
	}
	event := f.fsSub.MessageEvent(f.fsApp.ID, feishufake.Message{EventID: "ev-fs-1", SenderOpenID: "ou_ann",
		MessageID: "om_fs_1", ChatID: "oc_p2p_ann", ChatType: "p2p", Text: "hello feishu"})
	body, headers := f.fsSub.Wire(event, "forged-encrypt-key")
	if status, raw := postRaw(t, f.fsURL, body, headers); status != 401 {
		t.Fatalf("forged signature = %d %s; want 401", status, raw)
	}
	f.push(t, f.fsSub, f.fsURL, event)
	waitFor(t, "the reply to om_fs_1", func() bool { return len(f.replies("om_fs_1")) > 0 })
	f.push(t, f.fsSub, f.fsURL, event) // delivered again by the platform
	f.fake.RevokeTokens()              // the next send finds its cached token refused
	next := f.fsSub.MessageEvent(f.fsApp.ID, feishufake.Message{EventID: "ev-fs-2", SenderOpenID: "ou_ann",
		MessageID: "om_fs_2", ChatID: "oc_p2p_ann", ChatType: "p2p", Text: "second feishu"})
	f.push(t, f.fsSub, f.fsURL, next)
	waitDelivery(t, f.s, f.botID, f.fsID, "ev-fs-2", "delivered")
	d := waitDelivery(t, f.s, f.botID, f.fsID, "ev-fs-1", "delivered")
	if got := f.replies("om_fs_1"); len(got) != 1 || got[0].Text != "echo: hello feishu" || modelCalls(f.llm, "hello feishu") != 1 || d["attempts"] != float64(1) {
		t.Fatalf("replies %+v, model calls %d, delivery %v; want the answer once", got, modelCalls(f.llm, "hello feishu"), d)
	}
	if got := f.replies("om_fs_2"); len(got) != 1 || got[0].Text != "echo: second feishu" {
		t.Fatalf("after the token was revoked: replies %+v; want the answer with a fresh token", got)
	}
	if list := deliveries(t, f.s, f.botID, f.fsID); len(list) != 2 {
		t.Fatalf("deliveries = %v; want the two events, nothing of the forged request", list)
	}
}

func larkGroups(t *testing.T, f *feishuSetup) {
	raw := f.push(t, f.lkSub, f.lkURL, f.lkSub.Challenge("chal-lark-1"))
	var echoed map[string]any
	if _ = json.Unmarshal(raw, &echoed); str(echoed, "challenge") != "chal-lark-1" {
		t.Fatalf("url_verification answered %s; want the challenge", raw)
	}
	wrong := feishufake.Subscription{VerificationToken: "not-the-verification-token"}
	forged := wrong.MessageEvent(f.lkApp.ID, feishufake.Message{EventID: "ev-lk-0", SenderOpenID: "ou_bob",
		MessageID: "om_lk_0", ChatID: "oc_group", ChatType: "p2p", Text: "forged lark"})
	if status, raw, _ := wrong.Push(context.Background(), http.DefaultClient, f.lkURL, forged); status != 401 {
		t.Fatalf("a wrong verification token = %d %s; want 401", status, raw)
	}
	chatter := f.lkSub.MessageEvent(f.lkApp.ID, feishufake.Message{EventID: "ev-lk-1", SenderOpenID: "ou_bob",
		MessageID: "om_lk_1", ChatID: "oc_group", ChatType: "group", Text: "@_user_1 group chatter", Mentions: map[string]string{"@_user_1": "ou_carol"}})
	mention := f.lkSub.MessageEvent(f.lkApp.ID, feishufake.Message{EventID: "ev-lk-2", SenderOpenID: "ou_bob",
		MessageID: "om_lk_2", ChatID: "oc_group", ChatType: "group", Text: "@_user_1 hello lark", Mentions: map[string]string{"@_user_1": f.lkApp.BotOpenID}})
	f.push(t, f.lkSub, f.lkURL, chatter)
	f.push(t, f.lkSub, f.lkURL, mention)
	waitDelivery(t, f.s, f.botID, f.lkID, "ev-lk-2", "delivered")
	if got := f.replies("om_lk_2"); len(got) != 1 || got[0].Text != "echo: hello lark" {
		t.Fatalf("the mention got %+v; want the answer without the mention", got)
	}
	if len(f.replies("om_lk_1"))+len(f.replies("om_lk_0")) != 0 || modelCalls(f.llm, "forged lark") != 0 {
		t.Fatal("a forged or unaddressed message was answered")
	}
	if list := deliveries(t, f.s, f.botID, f.lkID); len(list) != 1 {
		t.Fatalf("deliveries = %v; want only the mention", list)
	}
}
