package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

type knowledgeDocRow struct {
	ID             int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID    int64
	KnowledgeID    int64
	CreatorID      int64
	Name           string
	Source         string
	FileID         int64
	URL            string `gorm:"column:url"`
	Body           string
	FileType       string
	Size           int64
	Strategy       string // strategyDoc JSON
	Columns        string // columnDoc JSON array
	UpdateAuto     bool
	UpdateInterval int
	Status         int
	Reason         string
	Progress       int
	Chunks         int64
	Generation     int64
	Attempts       int
	LeaseOwner     string
	LeaseUntil     *time.Time
	StartedAt      *time.Time
	RefreshedAt    *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (knowledgeDocRow) TableName() string { return "knowledge_documents" }

// columnDoc is a table knowledge column as stored.
type columnDoc struct {
	Name    string `json:"name"`
	Indexed bool   `json:"indexed"`
}

func docToRow(d *knowledge.Document) *knowledgeDocRow {
	cols := make([]columnDoc, len(d.Columns))
	for i, c := range d.Columns {
		cols[i] = columnDoc{Name: c.Name, Indexed: c.Indexed}
	}
	cj, _ := json.Marshal(cols)
	return &knowledgeDocRow{ID: d.ID, WorkspaceID: d.WorkspaceID, KnowledgeID: d.KnowledgeID, CreatorID: d.CreatorID, Name: d.Name,
		Source: string(d.Source), FileID: d.FileID, URL: d.URL, Body: d.Text, FileType: d.FileType, Size: d.Size,
		Strategy: strategyJSON(d.Strategy), Columns: string(cj), UpdateAuto: d.UpdateRule.Auto, UpdateInterval: d.UpdateRule.IntervalHours,
		Status: int(d.Status), Reason: d.Reason, Progress: d.Progress, Chunks: d.Chunks, Generation: d.Generation,
		StartedAt: dbTimePtr(d.StartedAt), RefreshedAt: dbTimePtr(d.RefreshedAt), CreatedAt: dbTime(d.CreatedAt), UpdatedAt: dbTime(d.UpdatedAt)}
}

func docFromRow(r *knowledgeDocRow) (*knowledge.Document, error) {
	cs, err := strategyOf(r.Strategy)
	if err != nil {
		return nil, err
	}
	var cols []columnDoc
	if err := json.Unmarshal([]byte(r.Columns), &cols); err != nil {
		return nil, fmt.Errorf("sqlstore: columns of document %d: %w", r.ID, err)
	}
	d := &knowledge.Document{ID: r.ID, WorkspaceID: r.WorkspaceID, KnowledgeID: r.KnowledgeID, CreatorID: r.CreatorID, Name: r.Name,
		Source: knowledge.SourceKind(r.Source), FileID: r.FileID, URL: r.URL, Text: r.Body, FileType: r.FileType, Size: r.Size,
		Strategy: cs, UpdateRule: knowledge.UpdateRule{Auto: r.UpdateAuto, IntervalHours: r.UpdateInterval},
		Status: knowledge.Status(r.Status), Reason: r.Reason, Progress: r.Progress, Chunks: r.Chunks, Generation: r.Generation,
		StartedAt: utcPtr(r.StartedAt), RefreshedAt: utcPtr(r.RefreshedAt), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	for _, c := range cols {
		d.Columns = append(d.Columns, knowledge.Column{Name: c.Name, Indexed: c.Indexed})
	}
	return d, nil
}

func docsFromRows(rows []knowledgeDocRow) ([]knowledge.Document, error) {
	out := make([]knowledge.Document, len(rows))
	for i := range rows {
		d, err := docFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = *d
	}
	return out, nil
}

func documentNotFound(id int64) error { return errs.NotFound("document", strconv.FormatInt(id, 10)) }

// CreateDocuments stores new documents in one transaction, leased to the
// queue until queuedUntil, after checking under the knowledge base's lock
// that it would hold at most maxDocs documents (errs.ErrInvalid
// otherwise). errs.ErrNotFound when the knowledge base is gone.
func (s *KnowledgeStore) CreateDocuments(ctx context.Context, docs []*knowledge.Document, maxDocs int, queuedUntil time.Time) error {
	if len(docs) == 0 {
		return nil
	}
	ws, kb := docs[0].WorkspaceID, docs[0].KnowledgeID
	now := s.db.timestamp()
	rows := make([]*knowledgeDocRow, len(docs))
	for i, d := range docs {
		d.CreatedAt, d.UpdatedAt = now, now
		rows[i] = docToRow(d)
		if d.Status == knowledge.StatusProcessing {
			rows[i].LeaseOwner, rows[i].LeaseUntil = knowledge.QueuedOwner, dbTimePtr(&queuedUntil)
		}
	}
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var base knowledgeBaseRow
		if err := forUpdate(tx).Select("id").Where("id = ? AND workspace_id = ?", kb, ws).Take(&base).Error; err != nil {
			if isNoRow(err) {
				return knowledgeNotFound(kb)
			}
			return err
		}
		var n int64
		if err := tx.Model(&knowledgeDocRow{}).Where("knowledge_id = ?", kb).Count(&n).Error; err != nil {
			return err
		}
		if maxDocs > 0 && n+int64(len(docs)) > int64(maxDocs) {
			return errs.Invalid("documents", "the knowledge base holds %d documents; adding %d would pass the limit of %d", n, len(docs), maxDocs)
		}
		return tx.Create(rows).Error
	})
	if err != nil && !isDomain(err) {
		return fmt.Errorf("sqlstore: create documents: %w", err)
	}
	return err
}

// GetDocument returns the document with id, or errs.ErrNotFound.
func (s *KnowledgeStore) GetDocument(ctx context.Context, id int64) (*knowledge.Document, error) {
	var row knowledgeDocRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, documentNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get document: %w", err)
	}
	return docFromRow(&row)
}

// ListDocuments returns one page of a knowledge base's documents, newest
// first, and their count.
func (s *KnowledgeStore) ListDocuments(ctx context.Context, workspaceID, knowledgeID int64, p identity.Page) ([]knowledge.Document, int64, error) {
	query := func() *gorm.DB {
		return s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).Where("workspace_id = ? AND knowledge_id = ?", workspaceID, knowledgeID)
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count documents: %w", err)
	}
	var rows []knowledgeDocRow
	if err := page(query().Order("created_at DESC, id DESC"), p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list documents: %w", err)
	}
	docs, err := docsFromRows(rows)
	return docs, total, err
}

// DocumentsByID returns the documents among ids in the workspace.
func (s *KnowledgeStore) DocumentsByID(ctx context.Context, workspaceID int64, ids []int64) ([]knowledge.Document, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []knowledgeDocRow
	err := s.db.gorm.WithContext(ctx).Omit("body").Where("workspace_id = ? AND id IN ?", workspaceID, ids).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: documents by id: %w", err)
	}
	return docsFromRows(rows)
}

// UpdateDocument runs fn on a document inside a transaction, with its row
// locked, and saves its name, update rule and chunk count; nothing else
// fn changes is kept. errs.ErrNotFound when it is not in the workspace.
func (s *KnowledgeStore) UpdateDocument(ctx context.Context, workspaceID, id int64, fn func(*knowledge.Document) error) (*knowledge.Document, error) {
	var changed *knowledge.Document
	row, err := updateLocked(ctx, s.db, "update document", func() error { return documentNotFound(id) }, func(r *knowledgeDocRow) error {
		d, err := docFromRow(r)
		if err != nil {
			return err
		}
		if err := fn(d); err != nil {
			return err
		}
		r.Name, r.UpdateAuto, r.UpdateInterval, r.Chunks = d.Name, d.UpdateRule.Auto, d.UpdateRule.IntervalHours, d.Chunks
		r.UpdatedAt = s.db.timestamp()
		changed, err = docFromRow(r)
		return err
	}, "id = ? AND workspace_id = ?", id, workspaceID)
	if err != nil {
		return nil, err
	}
	changed.UpdatedAt = row.UpdatedAt.UTC()
	return changed, nil
}

// DeleteDocuments removes documents of a knowledge base.
func (s *KnowledgeStore) DeleteDocuments(ctx context.Context, workspaceID, knowledgeID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.db.gorm.WithContext(ctx).Where("workspace_id = ? AND knowledge_id = ? AND id IN ?", workspaceID, knowledgeID, ids).
		Delete(&knowledgeDocRow{}).Error
	if err != nil {
		return fmt.Errorf("sqlstore: delete documents: %w", err)
	}
	return nil
}

// CountBases sums up knowledge bases: documents, chunks of ready
// documents, bytes, and the ids of documents processing or failed.
func (s *KnowledgeStore) CountBases(ctx context.Context, workspaceID int64, ids []int64) (map[int64]knowledge.Counts, error) {
	out := map[int64]knowledge.Counts{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		KnowledgeID int64
		Status      int
		Docs        int64
		Chunks      int64
		Bytes       int64
	}
	err := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).
		Select("knowledge_id, status, COUNT(*) AS docs, COALESCE(SUM(chunks), 0) AS chunks, COALESCE(SUM(size), 0) AS bytes").
		Where("workspace_id = ? AND knowledge_id IN ?", workspaceID, ids).Group("knowledge_id, status").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: count documents: %w", err)
	}
	for _, r := range rows {
		c := out[r.KnowledgeID]
		c.Documents += r.Docs
		c.Bytes += r.Bytes
		if knowledge.Status(r.Status) == knowledge.StatusReady {
			c.Chunks += r.Chunks
		}
		out[r.KnowledgeID] = c
	}
	return out, s.pendingIDs(ctx, workspaceID, ids, out)
}

// pendingIDs adds the ids of processing and failed documents.
func (s *KnowledgeStore) pendingIDs(ctx context.Context, workspaceID int64, ids []int64, out map[int64]knowledge.Counts) error {
	var rows []struct {
		ID, KnowledgeID int64
		Status          int
	}
	err := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).Select("id, knowledge_id, status").
		Where("workspace_id = ? AND knowledge_id IN ? AND status IN ?", workspaceID, ids,
			[]int{int(knowledge.StatusProcessing), int(knowledge.StatusFailed)}).Order("id").Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("sqlstore: pending documents: %w", err)
	}
	for _, r := range rows {
		c := out[r.KnowledgeID]
		if knowledge.Status(r.Status) == knowledge.StatusFailed {
			c.Failed = append(c.Failed, r.ID)
		} else {
			c.Processing = append(c.Processing, r.ID)
		}
		out[r.KnowledgeID] = c
	}
	return nil
}
