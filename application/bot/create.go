package bot

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Create makes a bot in a workspace from cfg; the caller becomes its
// creator. It needs the bot scope and membership of the workspace
// (errs.ErrForbidden otherwise). A wrong configuration fails with
// errs.ErrInvalid naming the field; a missing model id takes the default
// model (see prepare).
func (s *Service) Create(ctx context.Context, p identity.Principal, workspaceID int64, cfg bot.Config) (*bot.Bot, error) {
	if err := p.RequireScope(identity.ScopeBot); err != nil {
		return nil, err
	}
	if workspaceID <= 0 {
		return nil, errs.Invalid("workspace_id", "is required")
	}
	if _, err := s.access.Authorize(ctx, p, workspaceID, identity.RoleMember); err != nil {
		return nil, err
	}
	if err := s.prepare(ctx, workspaceID, 0, &cfg, false); err != nil {
		return nil, err
	}
	if err := s.checkHandoffs(ctx, workspaceID, 0, &cfg); err != nil {
		return nil, err
	}
	b := &bot.Bot{WorkspaceID: workspaceID, CreatorID: p.UserID, Draft: cfg}
	if err := s.store.CreateBot(ctx, b); err != nil {
		return nil, fmt.Errorf("create bot: %w", err)
	}
	return b, nil
}
