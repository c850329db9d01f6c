package feishu

import (
	"context"
	"encoding/json"
	"strings"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// msgEvent is the event of im.message.receive_v1.
type msgEvent struct {
	Sender struct {
		SenderID   userID `json:"sender_id"`
		SenderType string `json:"sender_type"`
	} `json:"sender"`
	Message *message `json:"message"`
}

type userID struct {
	OpenID string `json:"open_id"`
}

type message struct {
	MessageID   string    `json:"message_id"`
	ChatID      string    `json:"chat_id"`
	ChatType    string    `json:"chat_type"`
	MessageType string    `json:"message_type"`
	Content     string    `json:"content"`
	Mentions    []mention `json:"mentions"`
}

type mention struct {
	Key  string `json:"key"`
	ID   userID `json:"id"`
	Name string `json:"name"`
}

// parseMessage turns a received message into the event to answer, or
// none when it is not a person writing to the bot.
func (k *Kind) parseMessage(ctx context.Context, c *channel.Channel, env envelope) (appchannel.Reaction, error) {
	e := env.Event
	if env.Header.EventID == "" || e == nil || e.Message == nil || e.Message.MessageID == "" || e.Message.ChatID == "" {
		return appchannel.Reaction{}, errs.Invalid("body", "an im.message.receive_v1 event must carry header.event_id and event.message with message_id and chat_id")
	}
	if e.Sender.SenderType != "user" || e.Sender.SenderID.OpenID == "" {
		return appchannel.Reaction{}, nil
	}
	bot, ok, err := k.mentionsBot(ctx, c, e.Message)
	if err != nil || !ok {
		return appchannel.Reaction{}, err
	}
	text := ""
	if e.Message.MessageType == "text" {
		text = messageText(e.Message, bot)
	}
	reply, _ := json.Marshal(replyTo{MessageID: e.Message.MessageID, ChatID: e.Message.ChatID})
	return appchannel.Reaction{Events: []appchannel.Event{{
		ID: env.Header.EventID, UserID: e.Sender.SenderID.OpenID, ConversationKey: e.Message.ChatID,
		Text: text, NotText: text == "", Reply: reply,
	}}}, nil
}

// messageText reads a text message's content, {"text":"…"}, with the
// bot's mention key (@_user_1 …) removed and other people's written as
// @Name; when the bot is not known (direct chats) every key is removed.
func messageText(m *message, bot string) string {
	var content struct {
		Text string `json:"text"`
	}
	if json.Unmarshal([]byte(m.Content), &content) != nil {
		return ""
	}
	text := content.Text
	for _, mention := range m.Mentions {
		if mention.Key == "" {
			continue
		}
		name := ""
		if bot != "" && mention.ID.OpenID != bot {
			name = "@" + mention.Name
		}
		text = strings.ReplaceAll(text, mention.Key, name)
	}
	return strings.Join(strings.Fields(text), " ")
}
