package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 15: apps (Coze's projects) with their declared variables, and
// the values of those variables per end user. Deleting a workspace deletes
// its apps, and deleting an app the values of its variables. A workflow
// run names the app whose variables it uses (0: none), so a resumed run
// finds them again.

// Snapshots of migration 15. Frozen.

type m0015App struct {
	ID          int64           `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64           `gorm:"not null;uniqueIndex:ux_apps_workspace_name,priority:1"`
	CreatorID   int64           `gorm:"not null"`
	Name        caseFoldText    `gorm:"not null;uniqueIndex:ux_apps_workspace_name,priority:2"`
	Description string          `gorm:"type:text;not null"`
	Variables   jsonDoc         `gorm:"not null"` // JSON array of variables
	CreatedAt   time.Time       `gorm:"not null;precision:3"`
	UpdatedAt   time.Time       `gorm:"not null;precision:3"`
	Workspace   *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0015App) TableName() string { return "apps" }

type m0015AppValue struct {
	AppID       int64      `gorm:"primaryKey;autoIncrement:false"`
	ConnectorID exactKey   `gorm:"primaryKey"`
	UserID      endUserKey `gorm:"primaryKey"`
	Name        exactKey   `gorm:"primaryKey"`
	Value       jsonDoc    `gorm:"not null"` // the value's JSON
	CreatedAt   time.Time  `gorm:"not null;precision:3"`
	UpdatedAt   time.Time  `gorm:"not null;precision:3"`
	App         *m0015App  `gorm:"foreignKey:AppID;constraint:OnDelete:CASCADE"`
}

func (m0015AppValue) TableName() string { return "app_variable_values" }

type m0015WorkflowRun struct {
	AppID int64 `gorm:"not null;default:0"`
}

func (m0015WorkflowRun) TableName() string { return "workflow_runs" }

func up0015(tx *gorm.DB) error {
	if err := createTables(tx, &m0015App{}, &m0015AppValue{}); err != nil {
		return err
	}
	if tx.Migrator().HasColumn(&m0015WorkflowRun{}, "AppID") {
		return nil
	}
	return tx.Migrator().AddColumn(&m0015WorkflowRun{}, "AppID")
}
