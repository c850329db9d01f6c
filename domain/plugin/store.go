package plugin

import (
	"context"
	"time"
)

// ListFilter selects plugins to list.
type ListFilter struct {
	// WorkspaceID keeps the plugins of one workspace; with Catalog it
	// keeps the built-ins; with neither, every plugin (administrators).
	WorkspaceID int64
	Catalog     bool
	Offset      int
	Limit       int // 0 or less: every plugin
}

// Store keeps plugins and their versions. GetPlugin and GetVersion return
// errs.ErrNotFound when unknown; writes act only inside the given
// workspace and answer ErrNotFound for a plugin of another one.
type Store interface {
	// CreatePlugin stores p, assigning its ID when zero, its timestamps
	// and DraftRevision 1. A name already used in the workspace is
	// errs.ErrConflict.
	CreatePlugin(ctx context.Context, p *Plugin) error
	// GetPlugin returns a plugin; its Draft.Source is empty.
	GetPlugin(ctx context.Context, id int64) (*Plugin, error)
	// GetHead returns a plugin without its draft (no source, no tools):
	// what a call of a published version needs, read cheaply.
	GetHead(ctx context.Context, id int64) (*Plugin, error)
	// GetSource returns the source document of the draft (version 0) or
	// of a version.
	GetSource(ctx context.Context, id, version int64) (string, error)
	// ListPlugins returns plugins, newest first, without sources, and how
	// many match in all.
	ListPlugins(ctx context.Context, f ListFilter) ([]Plugin, int64, error)
	// UpdatePlugin runs fn on the plugin (with its source) inside a
	// transaction and saves it with DraftRevision increased; fn's error
	// aborts with nothing written.
	UpdatePlugin(ctx context.Context, workspaceID, id int64, fn func(*Plugin) error) (*Plugin, error)
	// SetGovernance sets the platform-wide switches of any plugin.
	SetGovernance(ctx context.Context, id int64, fn func(*Plugin) error) (*Plugin, error)
	// DeletePlugin removes the plugin, its versions and its statistics.
	DeletePlugin(ctx context.Context, workspaceID, id int64) error
	// PublishPlugin stores v as the plugin's next version (v.Number is
	// assigned) and makes it the published one, atomically.
	PublishPlugin(ctx context.Context, workspaceID int64, v *Version) error
	// GetVersion returns a version; its Spec.Source is empty.
	GetVersion(ctx context.Context, id, number int64) (*Version, error)
	// ListVersions returns the versions of a plugin, newest first, without
	// sources.
	ListVersions(ctx context.Context, id int64) ([]Version, error)
	// SyncBuiltin creates or refreshes a catalog plugin with a fixed id and
	// its version 1, keeping the administrators' switches.
	SyncBuiltin(ctx context.Context, p *Plugin) error
}

// ToolStats is how often a tool was called, how often it failed, and how
// long the calls took.
type ToolStats struct {
	PluginID     int64
	Tool         string
	Calls        int64
	Errors       int64
	TotalLatency time.Duration
	MaxLatency   time.Duration
	LastCalledAt time.Time
	LastError    string
	LastErrorAt  *time.Time
}

// MeanLatency is the average duration of a call.
func (s ToolStats) MeanLatency() time.Duration {
	if s.Calls == 0 {
		return 0
	}
	return s.TotalLatency / time.Duration(s.Calls)
}

// Merge adds o, a later batch of the same tool, to s.
func (s *ToolStats) Merge(o ToolStats) {
	s.Calls += o.Calls
	s.Errors += o.Errors
	s.TotalLatency += o.TotalLatency
	s.MaxLatency = max(s.MaxLatency, o.MaxLatency)
	if o.LastCalledAt.After(s.LastCalledAt) {
		s.LastCalledAt = o.LastCalledAt
	}
	if o.LastErrorAt != nil && (s.LastErrorAt == nil || o.LastErrorAt.After(*s.LastErrorAt)) {
		s.LastError, s.LastErrorAt = o.LastError, o.LastErrorAt
	}
}

// StatsStore keeps the call statistics of tools.
type StatsStore interface {
	// AddStats adds each batch to the stored totals of its tool; batches of
	// plugins deleted meanwhile are dropped.
	AddStats(ctx context.Context, batches []ToolStats) error
	// ListStats returns the totals of the tools of the given plugins.
	ListStats(ctx context.Context, pluginIDs []int64) ([]ToolStats, error)
}
