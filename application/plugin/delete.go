package plugin

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Delete removes a plugin with its versions and statistics. Bots that
// bind it keep their configuration; their calls answer that the plugin no
// longer exists. It needs the plugin scope and, in the plugin's
// workspace, to be its creator or an admin (errs.ErrForbidden otherwise);
// an unreachable plugin is errs.ErrNotFound.
func (s *Service) Delete(ctx context.Context, p identity.Principal, id int64) error {
	pl, m, err := s.reachOwn(ctx, p, id)
	if err != nil {
		return err
	}
	if pl.CreatorID != p.UserID && !m.Role.AtLeast(identity.RoleAdmin) {
		return errs.Forbidden("only the plugin's creator or an admin of workspace %d may delete plugin %d", pl.WorkspaceID, id)
	}
	if err := s.d.Store.DeletePlugin(ctx, pl.WorkspaceID, id); err != nil {
		return fmt.Errorf("delete plugin %d: %w", id, err)
	}
	return nil
}
