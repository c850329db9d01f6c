package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// updateAttempts bounds the retries of an update that raced another one.
const updateAttempts = 3

// errStale aborts a store update when the draft changed after it was read.
var errStale = errors.New("draft changed meanwhile")

// Update changes the draft of a bot: edit receives a copy of the current
// draft and changes it (a patch) or replaces it. The result is checked
// like a new bot's. Checks that read the model registry run outside the
// store's transaction, so the save only succeeds when the draft is still
// the one edit saw; after a concurrent change edit runs again on the new
// draft, up to three times, then errs.ErrConflict. It needs the bot scope
// and membership of the bot's workspace; an unreachable bot is
// errs.ErrNotFound. edit's own error is returned unchanged.
func (s *Service) Update(ctx context.Context, p identity.Principal, botID int64, edit func(*bot.Config) error) (*bot.Bot, error) {
	for range updateAttempts {
		b, _, err := s.reach(ctx, p, botID, identity.ScopeBot)
		if err != nil {
			return nil, err
		}
		cfg := cloneConfig(b.Draft)
		if err := edit(&cfg); err != nil {
			return nil, err
		}
		if err := s.prepare(ctx, b.WorkspaceID, botID, &cfg, false); err != nil {
			return nil, err
		}
		if err := s.checkHandoffs(ctx, b.WorkspaceID, botID, &cfg); err != nil {
			return nil, err
		}
		saved, err := s.store.UpdateBot(ctx, b.WorkspaceID, botID, func(cur *bot.Bot) error {
			if cur.DraftRevision != b.DraftRevision {
				return errStale
			}
			cur.Draft = cfg
			return nil
		})
		if errors.Is(err, errStale) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("update bot %d: %w", botID, err)
		}
		s.invalidate(ctx, botID) // the cached bot beside its published versions
		return saved, nil
	}
	return nil, errs.Conflict("bot %d is being changed by someone else; reload it and try again", botID)
}

// cloneConfig copies the lists of c, so an edit cannot reach the original.
func cloneConfig(c bot.Config) bot.Config {
	out := c
	out.Plugins = append(out.Plugins[:0:0], c.Plugins...)
	out.Workflows = append(out.Workflows[:0:0], c.Workflows...)
	out.Tables = append(out.Tables[:0:0], c.Tables...)
	out.Variables = append(out.Variables[:0:0], c.Variables...)
	out.ClientTools = append(out.ClientTools[:0:0], c.ClientTools...)
	out.SubAgents = append(out.SubAgents[:0:0], c.SubAgents...)
	out.Handoffs = append(out.Handoffs[:0:0], c.Handoffs...)
	out.Knowledge.KnowledgeIDs = append(out.Knowledge.KnowledgeIDs[:0:0], c.Knowledge.KnowledgeIDs...)
	out.Onboarding.SuggestedQuestions = append(out.Onboarding.SuggestedQuestions[:0:0], c.Onboarding.SuggestedQuestions...)
	return out
}
