package plugin

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// BotRef names a bot, for messages.
type BotRef struct {
	ID   int64
	Name string
}

// BotUsers finds the published bots whose published version binds a
// plugin; the bot store, with a small adapter, implements it.
type BotUsers interface {
	PublishedBotsUsing(ctx context.Context, workspaceID, pluginID int64) ([]BotRef, error)
}

// Delete removes a plugin with its versions and statistics. Bots that
// bind it keep their configuration; their calls answer that the plugin no
// longer exists. A plugin the published version of a bot binds is not
// deleted unless force is set: errs.ErrConflict lists those bots. It
// needs the plugin scope and, in the plugin's workspace, to be its
// creator or an admin (errs.ErrForbidden otherwise); an unreachable
// plugin is errs.ErrNotFound.
func (s *Service) Delete(ctx context.Context, p identity.Principal, id int64, force bool) error {
	pl, m, err := s.reachOwn(ctx, p, id)
	if err != nil {
		return err
	}
	if pl.CreatorID != p.UserID && !m.Role.AtLeast(identity.RoleAdmin) {
		return errs.Forbidden("only the plugin's creator or an admin of workspace %d may delete plugin %d", pl.WorkspaceID, id)
	}
	if !force && s.d.Users != nil {
		bots, err := s.d.Users.PublishedBotsUsing(ctx, pl.WorkspaceID, id)
		if err != nil {
			return fmt.Errorf("plugin %d: find the bots that use it: %w", id, err)
		}
		if len(bots) > 0 {
			return errs.Conflict("plugin %d is used by the published bots %s: their tool calls would fail; "+
				"remove it from them and publish them again, or delete with ?force=true", id, botList(bots))
		}
	}
	if err := s.d.Store.DeletePlugin(ctx, pl.WorkspaceID, id); err != nil {
		return fmt.Errorf("delete plugin %d: %w", id, err)
	}
	return nil
}

// botList names bots as `12 "Support", 15 "Sales"`, the first ten.
func botList(bots []BotRef) string {
	const show = 10
	parts := make([]string, 0, min(len(bots), show)+1)
	for i, b := range bots {
		if i == show {
			parts = append(parts, "and "+strconv.Itoa(len(bots)-show)+" more")
			break
		}
		parts = append(parts, strconv.FormatInt(b.ID, 10)+" "+strconv.Quote(b.Name))
	}
	return strings.Join(parts, ", ")
}
