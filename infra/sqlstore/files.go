package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/file"
)

// FileStore keeps the metadata of uploaded files in the files table.
type FileStore struct{ db *DB }

var _ file.Store = (*FileStore)(nil)

// Files returns the store of file metadata.
func (db *DB) Files() *FileStore { return &FileStore{db: db} }

type fileRow struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64
	UserID      int64
	Name        string
	MimeType    string
	Bytes       int64
	SHA256      string `gorm:"column:sha256"`
	StorageKey  string
	CreatedAt   time.Time
}

func (fileRow) TableName() string { return "files" }

// CreateFile stores f's metadata; errs.ErrNotFound for an unknown
// workspace.
func (s *FileStore) CreateFile(ctx context.Context, f *file.File) error {
	f.CreatedAt = dbTime(f.CreatedAt)
	row := fileRow{ID: f.ID, WorkspaceID: f.WorkspaceID, UserID: f.UserID, Name: f.Name, MimeType: f.MimeType,
		Bytes: f.Bytes, SHA256: f.SHA256, StorageKey: f.StorageKey, CreatedAt: f.CreatedAt}
	err := s.db.gorm.WithContext(ctx).Create(&row).Error
	if isMissingParent(err) {
		return workspaceNotFound(f.WorkspaceID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: create file: %w", err)
	}
	return nil
}

// GetFile returns the file with id, or errs.ErrNotFound.
func (s *FileStore) GetFile(ctx context.Context, id int64) (*file.File, error) {
	var r fileRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		if isNoRow(err) {
			return nil, file.NotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get file: %w", err)
	}
	return &file.File{ID: r.ID, WorkspaceID: r.WorkspaceID, UserID: r.UserID, Name: r.Name, MimeType: r.MimeType,
		Bytes: r.Bytes, SHA256: r.SHA256, StorageKey: r.StorageKey, CreatedAt: r.CreatedAt.UTC()}, nil
}

// DeleteFile removes a file's metadata from its workspace;
// errs.ErrNotFound when it is not there.
func (s *FileStore) DeleteFile(ctx context.Context, workspaceID, id int64) error {
	res := s.db.gorm.WithContext(ctx).Where("id = ? AND workspace_id = ?", id, workspaceID).Delete(&fileRow{})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: delete file: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return file.NotFound(id)
	}
	return nil
}
