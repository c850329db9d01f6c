package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 4: plugins, their published versions and the call statistics
// of their tools. Built-in plugins of the catalog have no workspace (NULL),
// so the foreign key that deletes a workspace's plugins with it leaves
// them alone.

// Snapshots of migration 4. Frozen.

type m0004Plugin struct {
	ID               int64           `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID      *int64          `gorm:"uniqueIndex:ux_plugins_workspace_name,priority:1;index:ix_plugins_workspace_created,priority:1"`
	CreatorID        int64           `gorm:"not null"`
	Kind             string          `gorm:"size:16;not null"`
	Name             caseFoldText    `gorm:"not null;uniqueIndex:ux_plugins_workspace_name,priority:2"`
	Description      string          `gorm:"type:text;not null"`
	Auth             string          `gorm:"type:text;not null"` // sealed JSON
	DraftSource      m0003LongText   `gorm:"not null"`
	DraftSpec        jsonDoc         `gorm:"not null"`
	DraftRevision    int64           `gorm:"not null"`
	PublishedVersion int64           `gorm:"not null"`
	PublishedAt      *time.Time      `gorm:"precision:3"`
	Enabled          bool            `gorm:"not null"`
	DisabledTools    string          `gorm:"type:text;not null"` // JSON array of strings
	CreatedAt        time.Time       `gorm:"not null;precision:3;index:ix_plugins_workspace_created,priority:2"`
	UpdatedAt        time.Time       `gorm:"not null;precision:3"`
	Workspace        *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0004Plugin) TableName() string { return "plugins" }

type m0004PluginVersion struct {
	PluginID    int64         `gorm:"primaryKey;autoIncrement:false"`
	Number      int64         `gorm:"primaryKey;autoIncrement:false"`
	Source      m0003LongText `gorm:"not null"`
	Spec        jsonDoc       `gorm:"not null"`
	PublisherID int64         `gorm:"not null"`
	CreatedAt   time.Time     `gorm:"not null;precision:3"`
	Plugin      *m0004Plugin  `gorm:"foreignKey:PluginID;constraint:OnDelete:CASCADE"`
}

func (m0004PluginVersion) TableName() string { return "plugin_versions" }

type m0004ToolStat struct {
	PluginID     int64        `gorm:"primaryKey;autoIncrement:false"`
	Tool         exactKey     `gorm:"primaryKey"`
	Calls        int64        `gorm:"not null"`
	Failures     int64        `gorm:"not null"`
	TotalMs      float64      `gorm:"not null"`
	MaxMs        float64      `gorm:"not null"`
	LastCalledAt time.Time    `gorm:"not null;precision:3"`
	LastError    string       `gorm:"type:text;not null"`
	LastErrorAt  *time.Time   `gorm:"precision:3"`
	Plugin       *m0004Plugin `gorm:"foreignKey:PluginID;constraint:OnDelete:CASCADE"`
}

func (m0004ToolStat) TableName() string { return "plugin_tool_stats" }

// up0004 creates the plugin tables. Deleting a workspace deletes its
// plugins, and deleting a plugin its versions and statistics, by
// cascading foreign keys.
func up0004(tx *gorm.DB) error {
	return createTables(tx, &m0004Plugin{}, &m0004PluginVersion{}, &m0004ToolStat{})
}
