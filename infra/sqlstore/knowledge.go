package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// KnowledgeStore keeps knowledge bases in knowledge_bases and their
// documents, with the state of their indexing, in knowledge_documents.
type KnowledgeStore struct{ db *DB }

var (
	_ knowledge.BaseStore     = (*KnowledgeStore)(nil)
	_ knowledge.DocumentStore = (*KnowledgeStore)(nil)
)

// Knowledge returns the store of knowledge bases and documents.
func (db *DB) Knowledge() *KnowledgeStore { return &KnowledgeStore{db: db} }

type knowledgeBaseRow struct {
	ID             int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID    int64
	CreatorID      int64
	Name           string
	Description    string
	IconFileID     int64
	Format         int
	EmbeddingModel string
	Dimensions     int
	ChunkStrategy  string // strategyDoc JSON
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (knowledgeBaseRow) TableName() string { return "knowledge_bases" }

// strategyDoc is a chunk strategy as stored; its JSON names are the
// storage format.
type strategyDoc struct {
	Type              int    `json:"type"`
	Separator         string `json:"separator,omitempty"`
	MaxTokens         int    `json:"max_tokens,omitempty"`
	Overlap           int    `json:"overlap,omitempty"`
	RemoveExtraSpaces bool   `json:"remove_extra_spaces,omitempty"`
	RemoveURLsEmails  bool   `json:"remove_urls_emails,omitempty"`
}

func strategyJSON(c knowledge.ChunkStrategy) string {
	b, _ := json.Marshal(strategyDoc{Type: int(c.Type), Separator: c.Separator, MaxTokens: c.MaxTokens, Overlap: c.Overlap,
		RemoveExtraSpaces: c.RemoveExtraSpaces, RemoveURLsEmails: c.RemoveURLsEmails})
	return string(b)
}

func strategyOf(s string) (knowledge.ChunkStrategy, error) {
	var d strategyDoc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return knowledge.ChunkStrategy{}, fmt.Errorf("sqlstore: chunk strategy: %w", err)
	}
	return knowledge.ChunkStrategy{Type: knowledge.ChunkType(d.Type), Separator: d.Separator, MaxTokens: d.MaxTokens,
		Overlap: d.Overlap, RemoveExtraSpaces: d.RemoveExtraSpaces, RemoveURLsEmails: d.RemoveURLsEmails}, nil
}

func baseToRow(b *knowledge.Base) *knowledgeBaseRow {
	return &knowledgeBaseRow{ID: b.ID, WorkspaceID: b.WorkspaceID, CreatorID: b.CreatorID, Name: b.Name, Description: b.Description,
		IconFileID: b.IconFileID, Format: int(b.Format), EmbeddingModel: b.EmbeddingModel, Dimensions: b.Dimensions,
		ChunkStrategy: strategyJSON(b.ChunkStrategy), CreatedAt: dbTime(b.CreatedAt), UpdatedAt: dbTime(b.UpdatedAt)}
}

func baseFromRow(r *knowledgeBaseRow) (*knowledge.Base, error) {
	cs, err := strategyOf(r.ChunkStrategy)
	if err != nil {
		return nil, err
	}
	return &knowledge.Base{ID: r.ID, WorkspaceID: r.WorkspaceID, CreatorID: r.CreatorID, Name: r.Name, Description: r.Description,
		IconFileID: r.IconFileID, Format: knowledge.Format(r.Format), EmbeddingModel: r.EmbeddingModel, Dimensions: r.Dimensions,
		ChunkStrategy: cs, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}, nil
}

func knowledgeNotFound(id int64) error {
	return errs.NotFound("knowledge base", strconv.FormatInt(id, 10))
}

// CreateBase stores b, assigning its id when zero and its timestamps;
// errs.ErrNotFound for an unknown workspace.
func (s *KnowledgeStore) CreateBase(ctx context.Context, b *knowledge.Base) error {
	if b.ID == 0 {
		b.ID = s.db.ids.Next()
	}
	b.CreatedAt = s.db.timestamp()
	b.UpdatedAt = b.CreatedAt
	err := s.db.gorm.WithContext(ctx).Create(baseToRow(b)).Error
	if isMissingParent(err) {
		return workspaceNotFound(b.WorkspaceID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: create knowledge base: %w", err)
	}
	return nil
}

// GetBase returns the knowledge base with id, or errs.ErrNotFound.
func (s *KnowledgeStore) GetBase(ctx context.Context, id int64) (*knowledge.Base, error) {
	var row knowledgeBaseRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, knowledgeNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get knowledge base: %w", err)
	}
	return baseFromRow(&row)
}

// BasesByID returns the workspace's knowledge bases among ids.
func (s *KnowledgeStore) BasesByID(ctx context.Context, workspaceID int64, ids []int64) ([]knowledge.Base, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []knowledgeBaseRow
	if err := s.db.gorm.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, ids).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: knowledge bases by id: %w", err)
	}
	out := make([]knowledge.Base, 0, len(rows))
	for i := range rows {
		b, err := baseFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *b)
	}
	return out, nil
}

// ListBases returns one page of a workspace's knowledge bases, newest
// first, and how many match the filter.
func (s *KnowledgeStore) ListBases(ctx context.Context, workspaceID int64, f knowledge.ListFilter, p identity.Page) ([]knowledge.Base, int64, error) {
	query := func() *gorm.DB {
		q := s.db.gorm.WithContext(ctx).Model(&knowledgeBaseRow{}).Where("workspace_id = ?", workspaceID)
		if f.Name != "" {
			q = q.Where("LOWER(name) LIKE ? ESCAPE '!'", "%"+likeEscape(strings.ToLower(f.Name))+"%")
		}
		if f.Format != nil {
			q = q.Where("format = ?", int(*f.Format))
		}
		return q
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count knowledge bases: %w", err)
	}
	var rows []knowledgeBaseRow
	if err := page(query().Order("created_at DESC, id DESC"), p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list knowledge bases: %w", err)
	}
	out := make([]knowledge.Base, len(rows))
	for i := range rows {
		b, err := baseFromRow(&rows[i])
		if err != nil {
			return nil, 0, err
		}
		out[i] = *b
	}
	return out, total, nil
}

// likeEscape escapes the wildcards of a LIKE pattern with '!'.
func likeEscape(s string) string {
	return strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(s)
}

// UpdateBase runs fn on the knowledge base inside a transaction, with its
// row locked, and saves what fn leaves; id, workspace, creator, model,
// dimensions and creation time are kept whatever fn does. errs.ErrNotFound
// when it is not in the workspace; fn's error unchanged.
func (s *KnowledgeStore) UpdateBase(ctx context.Context, workspaceID, id int64, fn func(*knowledge.Base) error) (*knowledge.Base, error) {
	var changed *knowledge.Base
	row, err := updateLocked(ctx, s.db, "update knowledge base", func() error { return knowledgeNotFound(id) }, func(r *knowledgeBaseRow) error {
		b, err := baseFromRow(r)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
		b.ID, b.WorkspaceID, b.CreatorID, b.CreatedAt = r.ID, r.WorkspaceID, r.CreatorID, r.CreatedAt.UTC()
		b.EmbeddingModel, b.Dimensions, b.UpdatedAt = r.EmbeddingModel, r.Dimensions, s.db.timestamp()
		*r, changed = *baseToRow(b), b
		return nil
	}, "id = ? AND workspace_id = ?", id, workspaceID)
	if err != nil {
		return nil, err
	}
	changed.UpdatedAt = row.UpdatedAt.UTC()
	return changed, nil
}

// DeleteBase removes a knowledge base and its documents' records in one
// transaction; errs.ErrNotFound when it is not in the workspace.
func (s *KnowledgeStore) DeleteBase(ctx context.Context, workspaceID, id int64) error {
	var missing bool
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("knowledge_id = ? AND workspace_id = ?", id, workspaceID).Delete(&knowledgeDocRow{}).Error; err != nil {
			return err
		}
		res := tx.Where("id = ? AND workspace_id = ?", id, workspaceID).Delete(&knowledgeBaseRow{})
		missing = res.Error == nil && res.RowsAffected == 0
		return res.Error
	})
	if err != nil {
		return fmt.Errorf("sqlstore: delete knowledge base: %w", err)
	}
	if missing {
		return knowledgeNotFound(id)
	}
	return nil
}
