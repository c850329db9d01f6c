// Package file holds the files users upload (Coze's /v1/files): their
// metadata, the rules on what may be stored, and the ports of the stores
// that keep the metadata and the bytes. A file belongs to one workspace;
// messages of that workspace's chats may name it by id.
package file

import (
	"context"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// DefaultMaxBytes is the largest upload accepted unless configured.
const DefaultMaxBytes = 20 << 20

// File is an uploaded file's metadata. Its bytes are kept by a Blobs
// under StorageKey.
type File struct {
	ID          int64
	WorkspaceID int64
	UserID      int64 // who uploaded it
	Name        string
	MimeType    string // sniffed from the content, never the client's claim
	Bytes       int64
	SHA256      string // hex
	StorageKey  string
	CreatedAt   time.Time
}

// IsImage reports whether the file is an image a model can look at.
func (f *File) IsImage() bool { return IsImageType(f.MimeType) }

// StorageKey names the bytes of file id of a workspace in a Blobs. It is
// made of ids only: nothing a user sends reaches a path or an object key.
func StorageKey(workspaceID, id int64) string {
	return "files/" + strconv.FormatInt(workspaceID, 10) + "/" + strconv.FormatInt(id, 10)
}

// NotFound is the error of an unknown file, and of a file the caller may
// not see: both read the same, so ids of other workspaces cannot be probed.
func NotFound(id int64) error { return errs.NotFound("file", strconv.FormatInt(id, 10)) }

// Store keeps file metadata.
type Store interface {
	// CreateFile stores f; f.ID and f.CreatedAt must be set.
	CreateFile(ctx context.Context, f *File) error
	// GetFile returns the file with id, or errs.ErrNotFound.
	GetFile(ctx context.Context, id int64) (*File, error)
	// DeleteFile removes a file of a workspace; errs.ErrNotFound when it
	// is not there.
	DeleteFile(ctx context.Context, workspaceID, id int64) error
}

// Blobs keeps the bytes of files under keys made by StorageKey.
type Blobs interface {
	// Put stores data under key, replacing what was there.
	Put(ctx context.Context, key string, data []byte, mimeType string) error
	// Get returns the bytes under key; errs.ErrNotFound when none.
	Get(ctx context.Context, key string) ([]byte, error)
	// Delete removes the bytes under key; a missing key is no error.
	Delete(ctx context.Context, key string) error
}
