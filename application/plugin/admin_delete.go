package plugin

import (
	"context"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// AdminDelete removes any workspace's plugin, with its versions and
// statistics, as Delete does for a workspace's own; the caller must be a
// platform administrator with the admin scope (errs.ErrForbidden
// otherwise), an unknown plugin is errs.ErrNotFound and a built-in one of
// the catalog errs.ErrForbidden. Every deletion is
// logged at info level with who deleted what ("audit" = true), because
// the workspace's members did not do it themselves.
func (s *Service) AdminDelete(ctx context.Context, p identity.Principal, id int64) error {
	if err := requireAdmin(p); err != nil {
		return err
	}
	pl, err := s.d.Store.GetPlugin(ctx, id)
	if err != nil {
		return err
	}
	if pl.IsCatalog() {
		// The catalog is written again at every start: deleting would not last.
		return errs.Forbidden("plugin %d (%s) is a built-in plugin of the catalog and cannot be deleted; disable it with PATCH /api/admin/plugins/%d", id, pl.Name, id)
	}
	if err := s.d.Store.DeletePlugin(ctx, pl.WorkspaceID, id); err != nil {
		return fmt.Errorf("delete plugin %d: %w", id, err)
	}
	s.d.Log.InfoContext(ctx, "admin deleted a plugin", "audit", true, "action", "plugin.delete", "admin_user_id", strconv.FormatInt(p.UserID, 10),
		"token_id", p.TokenID, "plugin_id", id, "plugin_name", pl.Name, "workspace_id", pl.WorkspaceID, "creator_id", strconv.FormatInt(pl.CreatorID, 10))
	return nil
}
