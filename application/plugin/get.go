package plugin

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// Get returns a plugin with its draft and source document. It needs the
// plugin scope and membership of the plugin's workspace; built-ins are
// visible to everyone. An unreachable plugin is errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*plugin.Plugin, error) {
	pl, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if pl.Draft.Source, err = s.d.Store.GetSource(ctx, id, 0); err != nil {
		return nil, fmt.Errorf("get plugin %d: %w", id, err)
	}
	return pl, nil
}

// Scope selects what List returns.
type Scope int

// Scopes of a list.
const (
	AllScopes Scope = iota // the catalog first, then the workspace's own
	Workspace              // the workspace's own plugins
	Catalog                // the built-in plugins
)

// List returns one page of the plugins a workspace can use, newest first
// within the catalog and within the workspace, and how many there are in
// all. It needs the plugin scope and membership of the workspace.
func (s *Service) List(ctx context.Context, p identity.Principal, workspaceID int64, scope Scope, page identity.Page) ([]plugin.Plugin, int64, error) {
	if err := s.member(ctx, p, workspaceID); err != nil {
		return nil, 0, err
	}
	offset, limit := page.Offset(), page.Size
	var out []plugin.Plugin
	var total int64
	if scope != Workspace {
		cat, n, err := s.d.Store.ListPlugins(ctx, plugin.ListFilter{Catalog: true, Offset: offset, Limit: limit})
		if err != nil {
			return nil, 0, fmt.Errorf("list plugins: %w", err)
		}
		out, total = cat, n
		offset = max(0, offset-int(n))
		if limit > 0 {
			limit -= len(cat)
		}
	}
	if scope == Catalog {
		return out, total, nil
	}
	f := plugin.ListFilter{WorkspaceID: workspaceID, Offset: offset, Limit: limit}
	if page.Size > 0 && limit <= 0 {
		f.Limit, f.Offset = 1, 0 // only the count is needed
	}
	own, n, err := s.d.Store.ListPlugins(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list plugins: %w", err)
	}
	if page.Size <= 0 || limit > 0 {
		out = append(out, own...)
	}
	return out, total + n, nil
}

// ListVersions returns the published versions of a plugin, newest first;
// access as for Get.
func (s *Service) ListVersions(ctx context.Context, p identity.Principal, id int64) ([]plugin.Version, error) {
	if _, _, err := s.reach(ctx, p, id); err != nil {
		return nil, err
	}
	vs, err := s.d.Store.ListVersions(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("list versions of plugin %d: %w", id, err)
	}
	return vs, nil
}

// GetVersion returns one published version of a plugin with its source
// document, or errs.ErrNotFound; access as for Get.
func (s *Service) GetVersion(ctx context.Context, p identity.Principal, id, number int64) (*plugin.Version, error) {
	if _, _, err := s.reach(ctx, p, id); err != nil {
		return nil, err
	}
	v, err := s.d.Store.GetVersion(ctx, id, number)
	if err != nil {
		return nil, err
	}
	if v.Spec.Source, err = s.d.Store.GetSource(ctx, id, number); err != nil {
		return nil, fmt.Errorf("get version %d of plugin %d: %w", number, id, err)
	}
	return v, nil
}

// Publish stores the draft as the plugin's next immutable version, the
// one bots pin when they are published. It needs the plugin scope and
// membership of the plugin's workspace; built-ins are published already
// (errs.ErrForbidden).
func (s *Service) Publish(ctx context.Context, p identity.Principal, id int64) (*plugin.Version, error) {
	pl, _, err := s.reachOwn(ctx, p, id)
	if err != nil {
		return nil, err
	}
	src, err := s.d.Store.GetSource(ctx, id, 0)
	if err != nil {
		return nil, fmt.Errorf("publish plugin %d: %w", id, err)
	}
	if len(pl.Draft.Tools) == 0 {
		return nil, errs.Invalid("openapi", "plugin %d has no tools to publish", id)
	}
	v := &plugin.Version{PluginID: id, Spec: pl.Draft, PublisherID: p.UserID}
	v.Spec.Source = src
	if err := s.d.Store.PublishPlugin(ctx, pl.WorkspaceID, v); err != nil {
		return nil, fmt.Errorf("publish plugin %d: %w", id, err)
	}
	return v, nil
}
