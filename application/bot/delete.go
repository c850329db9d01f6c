package bot

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Delete removes a bot with its versions and the variable values of its
// end users. It needs the bot scope and, in the bot's workspace, to be the
// bot's creator or to hold the admin role (errs.ErrForbidden otherwise);
// an unreachable bot is errs.ErrNotFound.
func (s *Service) Delete(ctx context.Context, p identity.Principal, botID int64) error {
	b, m, err := s.reach(ctx, p, botID, identity.ScopeBot)
	if err != nil {
		return err
	}
	if b.CreatorID != p.UserID && !m.Role.AtLeast(identity.RoleAdmin) {
		return errs.Forbidden("only the bot's creator or an admin of workspace %d may delete bot %d", b.WorkspaceID, botID)
	}
	if err := s.store.DeleteBot(ctx, b.WorkspaceID, botID); err != nil {
		return fmt.Errorf("delete bot %d: %w", botID, err)
	}
	s.invalidate(ctx, botID)
	return nil
}
