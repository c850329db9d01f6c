package file

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
)

// Of returns the metadata of a file of the workspace, for a chat that
// already authorized its caller there; file.NotFound for an unknown file
// and for another workspace's.
func (s *Service) Of(ctx context.Context, workspaceID, id int64) (*file.File, error) {
	f, err := s.store.GetFile(ctx, id)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && f.WorkspaceID != workspaceID) {
		return nil, file.NotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("file: load: %w", err)
	}
	return f, nil
}

// Content returns a file of the workspace with its bytes, as Of.
func (s *Service) Content(ctx context.Context, workspaceID, id int64) (*file.File, []byte, error) {
	f, err := s.Of(ctx, workspaceID, id)
	if err != nil {
		return nil, nil, err
	}
	data, err := s.blobs.Get(ctx, f.StorageKey)
	if err != nil {
		return nil, nil, fmt.Errorf("file: read the bytes of file %d: %w", id, err)
	}
	return f, data, nil
}
