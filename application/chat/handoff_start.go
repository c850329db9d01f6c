package chat

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/variable"
)

// followActive makes a plan run the bot its conversation was handed to,
// if any: that bot's version published to the connector answers, with
// its own history window and keyword memory, while the chat stays the
// conversation's bot's. When the target cannot answer there any more
// (deleted, or no longer published to the connector) the conversation's
// own bot answers and takes the conversation back.
func (s *Service) followActive(ctx context.Context, pl *turnPlan, rt RequestTools, userID string) error {
	active := pl.conv.ActiveBotID
	if active == 0 || active == pl.bot.ID || s.d.Published == nil {
		return nil
	}
	b, v, err := s.d.Published.ResolvePublished(ctx, active, targetConnector(pl.connector))
	if err != nil || b.WorkspaceID != pl.conv.WorkspaceID {
		s.d.Log.WarnContext(ctx, "chat: the bot the conversation was handed to cannot answer; its own bot does",
			"conversation_id", pl.conv.ID, "bot_id", active, "err", err)
		if s.d.ActiveBots != nil {
			_ = s.d.ActiveBots.SetActiveBot(ctx, pl.conv.WorkspaceID, pl.conv.ID, 0)
		}
		return nil
	}
	c, err := s.agentForRequest(ctx, b, &v.Config, v.Number, rt)
	if err != nil {
		return err
	}
	if v.Config.HistoryRounds != pl.cfg.HistoryRounds {
		if pl.history, err = s.d.Messages.History(ctx, pl.conv.ID, pl.conv.SectionID, v.Config.HistoryRounds); err != nil {
			return fmt.Errorf("chat: history for bot %d: %w", b.ID, err)
		}
	}
	pl.home = &handoff{bot: pl.bot, cfg: pl.cfg, version: pl.version}
	pl.bot, pl.cfg, pl.compiled, pl.version = b, &v.Config, c, v.Number
	pl.values = s.prefetchValues(ctx, variable.Scope{BotID: b.ID, ConnectorID: pl.connector, UserID: userID}, v.Config.Variables)
	return nil
}

// chatBot is the bot and version a plan's chat belongs to: the
// conversation's bot, also when another bot answers for it.
func (pl *turnPlan) chatBot() (int64, int64) {
	if pl.home != nil {
		return pl.home.bot.ID, pl.home.version
	}
	return pl.bot.ID, pl.version
}

// homeOf is the conversation's own bot as a plan's chat runs it, which a
// transfer back to it returns to.
func (pl *turnPlan) homeOf() *handoff {
	if pl.home != nil {
		return pl.home
	}
	return &handoff{bot: pl.bot, cfg: pl.cfg, version: pl.version}
}

// answering is the bot that was answering when the chat stopped.
func (st *state) answering(c *conversation.Chat) int64 {
	if st.BotID != 0 {
		return st.BotID
	}
	return c.BotID
}

// handedTo is the bot answering a turn handed to another bot than the
// chat's, for its saved state; 0 otherwise.
func (t *turn) handedTo() int64 {
	if a := t.answering(); a != t.chat.BotID {
		return a
	}
	return 0
}

// handedBot is the bot a chat waiting for client tool outputs continues
// with: the bot that was answering when it stopped, which the
// conversation was handed to, at its version published to the chat's
// connector; else the chat's own bot, as resolved.
func (s *Service) handedBot(ctx context.Context, chat *conversation.Chat, b *bot.Bot, cfg *bot.Config, version int64) (*bot.Bot, *bot.Config, int64, error) {
	var st state
	if json.Unmarshal(chat.State, &st) != nil || st.BotID == 0 || st.BotID == chat.BotID || s.d.Published == nil {
		return b, cfg, version, nil
	}
	target, v, err := s.d.Published.ResolvePublished(ctx, st.BotID, targetConnector(chat.ConnectorID))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("chat %d: the bot it was handed to: %w", chat.ID, err)
	}
	if target.WorkspaceID != chat.WorkspaceID {
		return nil, nil, 0, errs.Conflict("chat %d was handed to a bot of another workspace", chat.ID)
	}
	return target, &v.Config, v.Number, nil
}
