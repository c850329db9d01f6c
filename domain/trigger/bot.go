package trigger

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Bot is what a bot trigger runs: a chat turn of the bot's published
// version with Prompt as the end user's message. The answer goes to a
// channel of the bot, posted into the platform chat ChatID (a Telegram
// chat id, a Slack channel …), or to an end user of the API, EndUser,
// stored in the trigger's conversation of the bot.
type Bot struct {
	BotID     int64
	Prompt    string
	ChannelID int64
	ChatID    string
	EndUser   string
}

// Limits of a bot trigger's fields.
const (
	MaxPromptLen = 4000
	MaxChatIDLen = 200
)

// IsBot reports whether t runs a bot rather than a workflow.
func (t *Trigger) IsBot() bool { return t.Bot.BotID != 0 }

// ToChannel reports whether a bot trigger's answer goes to a channel.
func (t *Trigger) ToChannel() bool { return t.Bot.ChannelID != 0 }

// UserID is the end user of t's runs: the end user a bot trigger
// answers, else "trigger:<id>", which marks the runs as the trigger's in
// the run and chat histories.
func (t *Trigger) UserID() string {
	if t.Bot.EndUser != "" {
		return t.Bot.EndUser
	}
	return "trigger:" + strconv.FormatInt(t.ID, 10)
}

// checkTarget checks that t runs a workflow or a bot, and a bot
// trigger's prompt and target.
func (t *Trigger) checkTarget() error {
	if !t.IsBot() {
		if t.WorkflowID == 0 {
			return errs.Invalid("workflow_id", "name the workflow to run, or a bot_id to run a bot")
		}
		return nil
	}
	if t.WorkflowID != 0 {
		return errs.Invalid("bot_id", "a trigger runs a workflow or a bot, not both: drop workflow_id or bot_id")
	}
	if t.Kind != KindSchedule {
		return errs.Invalid("kind", "a bot trigger is a schedule")
	}
	if len(t.Inputs) != 0 {
		return errs.Invalid("inputs", "a bot trigger takes a prompt, not inputs")
	}
	b := &t.Bot
	b.Prompt = strings.TrimSpace(b.Prompt)
	if b.Prompt == "" || utf8.RuneCountInString(b.Prompt) > MaxPromptLen {
		return errs.Invalid("prompt", "give the message the bot answers, 1 to %d characters", MaxPromptLen)
	}
	return b.checkDelivery()
}

// checkDelivery checks where a bot's answer goes: a channel and a chat
// in it, or an end user.
func (b *Bot) checkDelivery() error {
	b.ChatID = strings.TrimSpace(b.ChatID)
	toChannel := b.ChannelID != 0 || b.ChatID != ""
	switch {
	case toChannel && b.EndUser != "":
		return errs.Invalid("user_id", "the answer goes to a channel (channel_id and chat_id) or to an end user (user_id), not both")
	case !toChannel && b.EndUser == "":
		return errs.Invalid("channel_id", "say where the answer goes: a channel_id of the bot and a chat_id in it, or the user_id of an end user")
	case toChannel && b.ChannelID <= 0:
		return errs.Invalid("channel_id", "name the channel of the bot to post into")
	case toChannel && (b.ChatID == "" || utf8.RuneCountInString(b.ChatID) > MaxChatIDLen):
		return errs.Invalid("chat_id", "name the platform chat to post into (a Telegram chat id, a Slack channel id …), 1 to %d characters", MaxChatIDLen)
	case !toChannel:
		return conversation.CheckUserID("user_id", b.EndUser, conversation.MaxUserIDLen)
	}
	return nil
}
