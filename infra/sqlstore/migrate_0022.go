package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 22: knowledge bases (Coze's datasets) and their documents.
// A document row also holds the state of its indexing: a lease (owner,
// until) that a worker renews, the generation it claimed, and how many
// attempts were made, so that a worker of any process can take over the
// indexing of a document whose process died. Chunks and vectors live in
// the knowledge index (infra/knowledgestore), not here. Deleting a
// workspace deletes its knowledge bases and their documents.

// Snapshots of migration 22. Frozen.

type m0022KnowledgeBase struct {
	ID             int64           `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID    int64           `gorm:"not null;index:ix_knowledge_bases_workspace_name,priority:1"`
	CreatorID      int64           `gorm:"not null"`
	Name           string          `gorm:"size:200;not null;index:ix_knowledge_bases_workspace_name,priority:2"`
	Description    string          `gorm:"type:text;not null"`
	IconFileID     int64           `gorm:"not null;default:0"`
	Format         int             `gorm:"not null"`
	EmbeddingModel string          `gorm:"size:128;not null"`
	Dimensions     int             `gorm:"not null"`
	ChunkStrategy  jsonDoc         `gorm:"not null"`
	CreatedAt      time.Time       `gorm:"not null;precision:3"`
	UpdatedAt      time.Time       `gorm:"not null;precision:3"`
	Workspace      *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0022KnowledgeBase) TableName() string { return "knowledge_bases" }

type m0022KnowledgeDocument struct {
	ID             int64               `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID    int64               `gorm:"not null;index:ix_knowledge_documents_workspace"`
	KnowledgeID    int64               `gorm:"not null;index:ix_knowledge_documents_base_status,priority:1"`
	CreatorID      int64               `gorm:"not null"`
	Name           string              `gorm:"size:255;not null"`
	Source         string              `gorm:"size:8;not null"`
	FileID         int64               `gorm:"not null;default:0"`
	URL            string              `gorm:"column:url;type:text;not null"`
	Body           m0003LongText       `gorm:"not null"` // raw text of text documents
	FileType       string              `gorm:"size:16;not null"`
	Size           int64               `gorm:"not null"`
	Strategy       jsonDoc             `gorm:"not null"`
	Columns        jsonDoc             `gorm:"not null"`
	UpdateAuto     bool                `gorm:"not null"`
	UpdateInterval int                 `gorm:"not null"`
	Status         int                 `gorm:"not null;index:ix_knowledge_documents_base_status,priority:2;index:ix_knowledge_documents_lease,priority:1"`
	Reason         string              `gorm:"type:text;not null"`
	Progress       int                 `gorm:"not null"`
	Chunks         int64               `gorm:"not null"`
	Generation     int64               `gorm:"not null"`
	Attempts       int                 `gorm:"not null"`
	LeaseOwner     string              `gorm:"size:64;not null"`
	LeaseUntil     *time.Time          `gorm:"precision:3;index:ix_knowledge_documents_lease,priority:2"`
	StartedAt      *time.Time          `gorm:"precision:3"`
	RefreshedAt    *time.Time          `gorm:"precision:3"`
	CreatedAt      time.Time           `gorm:"not null;precision:3"`
	UpdatedAt      time.Time           `gorm:"not null;precision:3"`
	Workspace      *m0001Workspace     `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
	Knowledge      *m0022KnowledgeBase `gorm:"foreignKey:KnowledgeID;constraint:OnDelete:CASCADE"`
}

func (m0022KnowledgeDocument) TableName() string { return "knowledge_documents" }

func up0022(tx *gorm.DB) error {
	return createTables(tx, &m0022KnowledgeBase{}, &m0022KnowledgeDocument{})
}
