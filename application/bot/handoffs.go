package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// checkHandoffs checks the bots a configuration hands conversations to:
// each must be another bot of the same workspace. It records each
// target's current name, which names its transfer tool. self is the bot
// being saved (0 while it is created).
func (s *Service) checkHandoffs(ctx context.Context, workspaceID, self int64, cfg *bot.Config) error {
	if err := cfg.ValidateHandoffTargets(self); err != nil {
		return err
	}
	for i := range cfg.Handoffs {
		h := &cfg.Handoffs[i]
		at := "handoffs[" + strconv.Itoa(i) + "].bot_id"
		target, err := s.store.GetBot(ctx, h.BotID)
		if errors.Is(err, errs.ErrNotFound) || (err == nil && target.WorkspaceID != workspaceID) {
			return errs.Invalid(at, "bot %d is not a bot of this workspace; hand off only to bots of the same workspace", h.BotID)
		}
		if err != nil {
			return fmt.Errorf("check handoff to bot %d: %w", h.BotID, err)
		}
		h.Name = target.Draft.Name
	}
	return nil
}

// handsOffTo reports whether bot owner (a channel's bot) hands
// conversations to bot target of the same workspace, in its draft or in
// its latest version: then target may be published to owner's channels,
// to answer there the conversations handed to it.
func (s *Service) handsOffTo(ctx context.Context, owner, target int64) bool {
	o, err := s.store.GetBot(ctx, owner)
	if err != nil {
		return false
	}
	t, err := s.store.GetBot(ctx, target)
	if err != nil || t.WorkspaceID != o.WorkspaceID {
		return false
	}
	if listsHandoff(o.Draft, target) {
		return true
	}
	if !o.IsPublished() {
		return false
	}
	v, err := s.store.GetVersion(ctx, owner, o.PublishedVersion)
	return err == nil && listsHandoff(v.Config, target)
}

func listsHandoff(cfg bot.Config, target int64) bool {
	for _, h := range cfg.Handoffs {
		if h.BotID == target {
			return true
		}
	}
	return false
}
