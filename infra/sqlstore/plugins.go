package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// PluginStore keeps plugins in the plugins table, their published versions
// in plugin_versions and their tools' call statistics in
// plugin_tool_stats. Auth is sealed with the DB's Cipher. Built-in plugins
// of the catalog have a NULL workspace.
type PluginStore struct{ db *DB }

var (
	_ plugin.Store      = (*PluginStore)(nil)
	_ plugin.StatsStore = (*PluginStore)(nil)
)

// Plugins returns the store of plugins.
func (db *DB) Plugins() *PluginStore { return &PluginStore{db: db} }

type pluginRow struct {
	ID               int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID      *int64
	CreatorID        int64
	Kind             string
	Name             string
	Description      string
	Auth             string // sealed authDoc JSON
	DraftSource      string
	DraftSpec        string // specDoc JSON
	DraftRevision    int64
	PublishedVersion int64
	PublishedAt      *time.Time
	Enabled          bool
	DisabledTools    string // JSON array of strings
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

func (pluginRow) TableName() string { return "plugins" }

// withoutSource leaves the source document out of a read: most reads
// need the tools, not the document they came from.
const withoutSource = "draft_source"

func (s *PluginStore) toRow(p *plugin.Plugin) (*pluginRow, error) {
	auth, err := s.db.sealAuth(p.Auth, p.Env)
	if err != nil {
		return nil, err
	}
	spec, err := encodeSpec(&p.Draft)
	if err != nil {
		return nil, err
	}
	disabled, err := jsonList(p.DisabledTools)
	if err != nil {
		return nil, err
	}
	r := &pluginRow{
		ID: p.ID, CreatorID: p.CreatorID, Kind: string(p.Kind), Name: p.Name, Description: p.Description,
		Auth: auth, DraftSource: p.Draft.Source, DraftSpec: spec, DraftRevision: p.DraftRevision,
		PublishedVersion: p.PublishedVersion, PublishedAt: dbTimePtr(p.PublishedAt), Enabled: p.Enabled,
		DisabledTools: disabled, CreatedAt: dbTime(p.CreatedAt), UpdatedAt: dbTime(p.UpdatedAt),
	}
	if p.WorkspaceID != plugin.CatalogWorkspace {
		ws := p.WorkspaceID
		r.WorkspaceID = &ws
	}
	return r, nil
}

func (s *PluginStore) fromRow(r *pluginRow) (*plugin.Plugin, error) {
	auth, env, err := s.db.openAuth(r.Auth)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: plugin %d: %w", r.ID, err)
	}
	spec, err := decodeSpec(r.DraftSpec, r.DraftSource)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: draft of plugin %d: %w", r.ID, err)
	}
	p := &plugin.Plugin{
		ID: r.ID, CreatorID: r.CreatorID, Kind: plugin.Kind(r.Kind), Name: r.Name, Description: r.Description,
		Auth: auth, Env: env, Draft: spec, DraftRevision: r.DraftRevision, PublishedVersion: r.PublishedVersion,
		PublishedAt: utcPtr(r.PublishedAt), Enabled: r.Enabled, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if r.WorkspaceID != nil {
		p.WorkspaceID = *r.WorkspaceID
	}
	if err := fromJSONList(r.DisabledTools, &p.DisabledTools); err != nil {
		return nil, fmt.Errorf("sqlstore: disabled tools of plugin %d: %w", r.ID, err)
	}
	return p, nil
}

func pluginNotFound(id int64) error { return errs.NotFound("plugin", strconv.FormatInt(id, 10)) }

func pluginNameTaken(name string) error {
	return errs.Conflict("a plugin named %q already exists in this workspace; pick another name", name)
}

// CreatePlugin stores p, assigning its ID when zero, its timestamps and
// DraftRevision 1; it is not published. It returns errs.ErrNotFound when
// the workspace does not exist and errs.ErrConflict when the name is taken
// in the workspace.
func (s *PluginStore) CreatePlugin(ctx context.Context, p *plugin.Plugin) error {
	if p.ID == 0 {
		p.ID = s.db.ids.Next()
	}
	p.DraftRevision, p.PublishedVersion, p.PublishedAt = 1, 0, nil
	p.CreatedAt = s.db.timestamp()
	p.UpdatedAt = p.CreatedAt
	row, err := s.toRow(p)
	if err != nil {
		return fmt.Errorf("sqlstore: create plugin: %w", err)
	}
	err = s.db.gorm.WithContext(ctx).Create(row).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return workspaceNotFound(p.WorkspaceID)
	case isDuplicate(err):
		return pluginNameTaken(p.Name)
	}
	return fmt.Errorf("sqlstore: create plugin: %w", err)
}

// GetPlugin returns the plugin with id, without its source document, or
// errs.ErrNotFound.
func (s *PluginStore) GetPlugin(ctx context.Context, id int64) (*plugin.Plugin, error) {
	var row pluginRow
	if err := s.db.gorm.WithContext(ctx).Omit(withoutSource).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, pluginNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get plugin: %w", err)
	}
	return s.fromRow(&row)
}

// GetHead returns the plugin with id without its draft (no source, no
// tools), or errs.ErrNotFound.
func (s *PluginStore) GetHead(ctx context.Context, id int64) (*plugin.Plugin, error) {
	var row pluginRow
	err := s.db.gorm.WithContext(ctx).Omit(withoutSource, "draft_spec").Where("id = ?", id).Take(&row).Error
	if isNoRow(err) {
		return nil, pluginNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: get plugin: %w", err)
	}
	row.DraftSpec = `{"tools":[]}`
	return s.fromRow(&row)
}

// GetSource returns the source document of the draft (version 0) or of a
// published version, or errs.ErrNotFound.
func (s *PluginStore) GetSource(ctx context.Context, id, version int64) (string, error) {
	var src []string
	q := s.db.gorm.WithContext(ctx)
	if version == 0 {
		q = q.Model(&pluginRow{}).Where("id = ?", id).Pluck("draft_source", &src)
	} else {
		q = q.Model(&pluginVersionRow{}).Where("plugin_id = ? AND number = ?", id, version).Pluck("source", &src)
	}
	if q.Error != nil {
		return "", fmt.Errorf("sqlstore: source of plugin %d: %w", id, q.Error)
	}
	if len(src) == 0 {
		if version == 0 {
			return "", pluginNotFound(id)
		}
		return "", pluginVersionNotFound(id, version)
	}
	return src[0], nil
}

// ListPlugins returns plugins newest first, without their sources, and how
// many match in all: those of f.WorkspaceID, the catalog (f.Catalog), or
// every plugin when neither is set.
func (s *PluginStore) ListPlugins(ctx context.Context, f plugin.ListFilter) ([]plugin.Plugin, int64, error) {
	query := func() *gorm.DB {
		q := s.db.gorm.WithContext(ctx).Model(&pluginRow{})
		switch {
		case f.Catalog:
			q = q.Where("workspace_id IS NULL")
		case f.WorkspaceID != 0:
			q = q.Where("workspace_id = ?", f.WorkspaceID)
		}
		return q
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count plugins: %w", err)
	}
	q := query().Omit(withoutSource).Order("created_at DESC, id DESC")
	if f.Limit > 0 {
		q = q.Offset(f.Offset).Limit(f.Limit)
	}
	var rows []pluginRow
	if err := q.Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list plugins: %w", err)
	}
	out := make([]plugin.Plugin, len(rows))
	for i := range rows {
		p, err := s.fromRow(&rows[i])
		if err != nil {
			return nil, 0, err
		}
		out[i] = *p
	}
	return out, total, nil
}
