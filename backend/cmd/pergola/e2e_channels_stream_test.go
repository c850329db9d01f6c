package main

import (
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/discord"
	"github.com/pergola-ai/pergola/infra/channels/feishu"
	"github.com/pergola-ai/pergola/infra/channels/slack"
	"github.com/pergola-ai/pergola/infra/channels/telegram"
)

// TestChannelsStreamingEdits runs streamed answers end to end on both
// back ends: a model writing for about three seconds answers on
// Telegram, Slack, Discord and Feishu at once, and each platform's fake
// shows one message posted as soon as there was text, edited as the
// answer grew (each edit a longer prefix, at most about one a second,
// never the same text twice) and ending with the whole answer in the
// platform's dialect; each delivery counts one attempt.
func TestChannelsStreamingEdits(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			st := newStreamSetup(t, b)
			token := st.ask(t)
			for kind, event := range map[string]string{"telegram": "7001", "slack": "EvStream1", "discord": "1300000000000000077", "feishu": "ev-stream-1"} {
				if d := waitDelivery(t, st.s, st.botID, st.ids[kind], event, "delivered"); d["attempts"] != float64(1) || d["parts_sent"] != float64(1) {
					t.Fatalf("%s delivery = %v; want delivered at the first attempt, in one message", kind, d)
				}
			}
			t.Run("telegram", func(t *testing.T) { streamedTelegram(t, st) })
			t.Run("slack", func(t *testing.T) { streamedSlack(t, st) })
			t.Run("discord", func(t *testing.T) { streamedDiscord(t, st, token) })
			t.Run("feishu", func(t *testing.T) { streamedFeishu(t, st) })
			if n := modelCalls(st.llm, "please stream"); n != 4 {
				t.Fatalf("the model answered %d times; want once per platform", n)
			}
		})
	}
}

func streamedTelegram(t *testing.T, st *streamSetup) {
	sent := st.tg.Sent()
	if len(sent) != 1 || sent[0].ChatID != 71 || sent[0].ReplyTo != 70010 || sent[0].ParseMode != "HTML" {
		t.Fatalf("sendMessage calls = %+v; want one HTML message replying to the update", sent)
	}
	texts := []string{sent[0].Text}
	for _, e := range st.tg.Edits() {
		if e.MessageID != sent[0].MessageID || e.ParseMode != "HTML" {
			t.Fatalf("edit %+v; want edits of the sent message in HTML", e)
		}
		texts = append(texts, e.Text)
	}
	checkGrowth(t, "telegram", texts, telegram.HTML(streamAnswer))
	edits := 0
	for _, c := range st.tg.Calls() {
		if c == "editMessageText" {
			edits++
		}
	}
	if edits != len(texts)-1 {
		t.Fatalf("editMessageText called %d times, %d accepted; Telegram refused some (an identical text?)", edits, len(texts)-1)
	}
}

func streamedSlack(t *testing.T, st *streamSetup) {
	posted := st.sl.Posted()
	if len(posted) != 1 || posted[0].Channel != "D77" {
		t.Fatalf("chat.postMessage calls = %+v; want one message in D77", posted)
	}
	texts := []string{posted[0].Text}
	for _, u := range st.sl.Updates() {
		if u.Channel != "D77" || u.TS != posted[0].TS {
			t.Fatalf("chat.update %+v; want updates of the posted message", u)
		}
		texts = append(texts, u.Text)
	}
	checkGrowth(t, "slack", texts, slack.Mrkdwn(streamAnswer))
	if m, _ := st.sl.Message("D77", posted[0].TS); m.Text != slack.Mrkdwn(streamAnswer) {
		t.Fatalf("the message reads %q", m.Text)
	}
}

func streamedDiscord(t *testing.T, st *streamSetup, token string) {
	var texts []string
	for _, m := range st.dc.MessagesOf(token) {
		if !m.Edit || m.Target != "@original" || len(m.ParseMentions) != 0 {
			t.Fatalf("message %+v; want only edits of the original response, pinging no one", m)
		}
		texts = append(texts, m.Content)
	}
	checkGrowth(t, "discord", texts, discord.Markdown(streamAnswer))
}

func streamedFeishu(t *testing.T, st *streamSetup) {
	replies := st.fs.Replies()
	if len(replies) != 1 || replies[0].MessageID != "om_stream_1" {
		t.Fatalf("replies = %+v; want one reply to om_stream_1", replies)
	}
	texts := []string{replies[0].Text}
	for _, e := range st.fs.Edits() {
		if e.MessageID != replies[0].ID {
			t.Fatalf("edit %+v; want edits of the reply", e)
		}
		texts = append(texts, e.Text)
	}
	checkGrowth(t, "feishu", texts, feishu.Plain(streamAnswer))
	if len(texts)-1 > feishu.MaxEdits {
		t.Fatalf("%d edits; Feishu allows %d", len(texts)-1, feishu.MaxEdits)
	}
}
