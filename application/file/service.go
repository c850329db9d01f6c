// Package file holds the use cases of uploaded files: upload into a
// workspace, read a file's metadata, and read a file's bytes for a chat of
// the same workspace. Every read is scoped to the workspaces the caller
// is a member of (and its token allows); another workspace's file answers
// exactly like an unknown one.
package file

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Authorizer checks what a caller may do and knows each user's personal
// workspace. The identity service, with a small adapter, implements it.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
	PersonalWorkspace(ctx context.Context, userID int64) (int64, error)
}

// IDs hands out ids for new files.
type IDs interface{ Next() int64 }

// Service runs the file use cases.
type Service struct {
	store    file.Store
	blobs    file.Blobs
	access   Authorizer
	ids      IDs
	maxBytes int64
	log      *slog.Logger
	now      func() time.Time
}

// New returns a Service; maxBytes bounds an upload (0: file.DefaultMaxBytes).
func New(store file.Store, blobs file.Blobs, access Authorizer, ids IDs, maxBytes int64, log *slog.Logger) *Service {
	if maxBytes <= 0 {
		maxBytes = file.DefaultMaxBytes
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, blobs: blobs, access: access, ids: ids, maxBytes: maxBytes, log: log, now: time.Now}
}

// MaxBytes is the largest upload accepted.
func (s *Service) MaxBytes() int64 { return s.maxBytes }

// UploadInput is a file to store. WorkspaceID 0 picks the workspace: the
// token's only one, or else the caller's personal workspace.
type UploadInput struct {
	WorkspaceID int64
	Name        string
	Data        []byte
}

// Upload checks and stores a file. Bad input (empty, too large, a type not
// accepted) fails with errs.ErrInvalid before anything is stored; a
// failure after the bytes were stored removes them again.
func (s *Service) Upload(ctx context.Context, p identity.Principal, in UploadInput) (*file.File, error) {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, err
	}
	if int64(len(in.Data)) > s.maxBytes {
		return nil, TooLarge(int64(len(in.Data)), s.maxBytes)
	}
	name := file.CleanName(in.Name)
	mimeType, err := file.Classify(name, in.Data)
	if err != nil {
		return nil, err
	}
	ws, err := s.workspaceFor(ctx, p, in.WorkspaceID)
	if err != nil {
		return nil, err
	}
	return s.keep(ctx, ws, p.UserID, name, mimeType, in.Data)
}

// Keep stores bytes as a file of a workspace for another use case that
// checked its caller already (a knowledge document given as base64
// content): the same checks as Upload but no caller's, except that text
// Upload refuses by its type (HTML, markdown that sniffs as HTML) is kept
// as text/plain, so it is never served as a page. Errors as Upload.
func (s *Service) Keep(ctx context.Context, workspaceID, userID int64, name string, data []byte) (*file.File, error) {
	if int64(len(data)) > s.maxBytes {
		return nil, TooLarge(int64(len(data)), s.maxBytes)
	}
	name = file.CleanName(name)
	mimeType, err := file.Classify(name, data)
	if err != nil && len(data) > 0 && utf8.Valid(data) && !bytes.ContainsRune(data, 0) {
		mimeType, err = "text/plain", nil
	}
	if err != nil {
		return nil, err
	}
	return s.keep(ctx, workspaceID, userID, name, mimeType, data)
}

func (s *Service) keep(ctx context.Context, ws, userID int64, name, mimeType string, data []byte) (*file.File, error) {
	sum := sha256.Sum256(data)
	f := &file.File{ID: s.ids.Next(), WorkspaceID: ws, UserID: userID, Name: name, MimeType: mimeType,
		Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), CreatedAt: s.now().UTC()}
	f.StorageKey = file.StorageKey(ws, f.ID)
	return f, s.save(ctx, f, data)
}

// TooLargeError is an upload past the size limit. It matches
// errs.ErrInvalid; the HTTP layer answers it with 413.
type TooLargeError struct{ Bytes, Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file: is %d bytes; the limit is %d bytes (PERGOLA_FILES_MAX_BYTES)", e.Bytes, e.Max)
}

// Is makes a TooLargeError match errs.ErrInvalid.
func (e *TooLargeError) Is(target error) bool { return target == errs.ErrInvalid }

// TooLarge is the error of an upload of n bytes past the limit max.
func TooLarge(n, max int64) error { return &TooLargeError{Bytes: n, Max: max} }

// save stores the bytes, then the metadata; when the metadata cannot be
// stored the bytes are removed, so nothing is left half-written.
func (s *Service) save(ctx context.Context, f *file.File, data []byte) error {
	if err := s.blobs.Put(ctx, f.StorageKey, data, f.MimeType); err != nil {
		return fmt.Errorf("file: store the bytes: %w", err)
	}
	if err := s.store.CreateFile(ctx, f); err != nil {
		if derr := s.blobs.Delete(context.WithoutCancel(ctx), f.StorageKey); derr != nil {
			s.log.ErrorContext(ctx, "file: remove bytes of a file not stored", "file_id", f.ID, "err", derr)
		}
		return fmt.Errorf("file: store the metadata: %w", err)
	}
	return nil
}

// workspaceFor picks the workspace of an upload and checks the caller
// may act there.
func (s *Service) workspaceFor(ctx context.Context, p identity.Principal, ws int64) (int64, error) {
	switch {
	case ws != 0:
	case len(p.Workspaces) == 1:
		ws = p.Workspaces[0]
	default:
		personal, err := s.access.PersonalWorkspace(ctx, p.UserID)
		if errors.Is(err, errs.ErrNotFound) {
			return 0, errs.Invalid("workspace_id", "is required: you have no personal workspace")
		}
		if err != nil {
			return 0, fmt.Errorf("file: personal workspace: %w", err)
		}
		ws = personal
	}
	if _, err := s.access.Authorize(ctx, p, ws, identity.RoleMember); err != nil {
		return 0, err
	}
	return ws, nil
}

// Get returns a file's metadata when the caller is a member of its
// workspace; file.NotFound otherwise.
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*file.File, error) {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, err
	}
	f, err := s.store.GetFile(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, file.NotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("file: load: %w", err)
	}
	if _, err := s.access.Authorize(ctx, p, f.WorkspaceID, identity.RoleMember); err != nil {
		if errors.Is(err, errs.ErrForbidden) {
			return nil, file.NotFound(id)
		}
		return nil, err
	}
	return f, nil
}
