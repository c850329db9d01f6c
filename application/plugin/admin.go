package plugin

import (
	"context"
	"fmt"
	"slices"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// AdminPlugin is a plugin with the call statistics of its tools, as
// administrators see it.
type AdminPlugin struct {
	Plugin plugin.Plugin
	Stats  []plugin.ToolStats
}

// requireAdmin fails with errs.ErrForbidden unless the caller is a
// platform administrator with the admin scope.
func requireAdmin(p identity.Principal) error {
	if !p.IsAdmin {
		return errs.Forbidden("this needs a platform administrator")
	}
	return p.RequireScope(identity.ScopeAdmin)
}

// AdminList returns one page of every plugin across workspaces (or of one
// workspace when workspaceID is not 0), newest first, with the call
// statistics of their tools, and how many there are. Statistics not
// written yet by this process are written first.
func (s *Service) AdminList(ctx context.Context, p identity.Principal, workspaceID int64, page identity.Page) ([]AdminPlugin, int64, error) {
	if err := requireAdmin(p); err != nil {
		return nil, 0, err
	}
	list, total, err := s.d.Store.ListPlugins(ctx, plugin.ListFilter{WorkspaceID: workspaceID, Offset: page.Offset(), Limit: page.Size})
	if err != nil {
		return nil, 0, fmt.Errorf("list plugins: %w", err)
	}
	out, err := s.withStats(ctx, list)
	return out, total, err
}

// AdminGet returns any plugin with its statistics.
func (s *Service) AdminGet(ctx context.Context, p identity.Principal, id int64) (*AdminPlugin, error) {
	if err := requireAdmin(p); err != nil {
		return nil, err
	}
	pl, err := s.d.Store.GetPlugin(ctx, id)
	if err != nil {
		return nil, err
	}
	out, err := s.withStats(ctx, []plugin.Plugin{*pl})
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

func (s *Service) withStats(ctx context.Context, list []plugin.Plugin) ([]AdminPlugin, error) {
	if err := s.stats.flush(ctx); err != nil {
		return nil, fmt.Errorf("write plugin statistics: %w", err)
	}
	ids := make([]int64, len(list))
	for i, pl := range list {
		ids[i] = pl.ID
	}
	var stats []plugin.ToolStats
	if len(ids) > 0 {
		var err error
		if stats, err = s.d.Stats.ListStats(ctx, ids); err != nil {
			return nil, fmt.Errorf("plugin statistics: %w", err)
		}
	}
	out := make([]AdminPlugin, len(list))
	for i, pl := range list {
		out[i].Plugin = pl
		for _, st := range stats {
			if st.PluginID == pl.ID {
				out[i].Stats = append(out[i].Stats, st)
			}
		}
	}
	return out, nil
}

// SetEnabled switches a plugin on or off platform-wide: a disabled plugin
// can be neither bound nor called. Administrators only; an unknown plugin
// is errs.ErrNotFound.
func (s *Service) SetEnabled(ctx context.Context, p identity.Principal, id int64, enabled bool) (*AdminPlugin, error) {
	if err := requireAdmin(p); err != nil {
		return nil, err
	}
	if _, err := s.d.Store.SetGovernance(ctx, id, func(pl *plugin.Plugin) error { pl.Enabled = enabled; return nil }); err != nil {
		return nil, err
	}
	return s.AdminGet(ctx, p, id)
}

// SetToolEnabled switches one tool of a plugin on or off platform-wide.
// The tool must be one of the draft's or the latest version's
// (errs.ErrNotFound otherwise).
func (s *Service) SetToolEnabled(ctx context.Context, p identity.Principal, id int64, tool string, enabled bool) (*AdminPlugin, error) {
	if err := requireAdmin(p); err != nil {
		return nil, err
	}
	pl, err := s.d.Store.GetPlugin(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.knownTool(ctx, pl, tool); err != nil {
		return nil, err
	}
	_, err = s.d.Store.SetGovernance(ctx, id, func(pl *plugin.Plugin) error {
		pl.DisabledTools = slices.DeleteFunc(pl.DisabledTools, func(t string) bool { return t == tool })
		if !enabled {
			pl.DisabledTools = append(pl.DisabledTools, tool)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.AdminGet(ctx, p, id)
}

func (s *Service) knownTool(ctx context.Context, pl *plugin.Plugin, tool string) error {
	if _, ok := pl.Draft.Tool(tool); ok {
		return nil
	}
	if pl.IsPublished() {
		v, err := s.d.Store.GetVersion(ctx, pl.ID, pl.PublishedVersion)
		if err != nil {
			return err
		}
		if _, ok := v.Spec.Tool(tool); ok {
			return nil
		}
	}
	return errs.New(errs.ErrNotFound, "plugin %d has no tool %q", pl.ID, tool)
}
