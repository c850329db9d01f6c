// Package filestore keeps the bytes of uploaded files: on local disk
// (Local) or in an S3-compatible bucket (S3). Both implement file.Blobs.
// Keys are made by file.StorageKey from ids only; both stores still refuse
// a key that is not of that form, so no path or object name can come from
// user input.
package filestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
)

// keyPattern is the form of every key file.StorageKey makes.
var keyPattern = regexp.MustCompile(`^files/[0-9]{1,20}/[0-9]{1,20}$`)

func checkKey(key string) error {
	if !keyPattern.MatchString(key) {
		return fmt.Errorf("filestore: malformed key %q", key)
	}
	return nil
}

// Local keeps files under a directory, one file per key.
type Local struct{ root string }

var _ file.Blobs = (*Local)(nil)

// NewLocal returns a store under root, creating it (mode 0700) when
// missing.
func NewLocal(root string) (*Local, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("filestore: create %s: %w", root, err)
	}
	return &Local{root: root}, nil
}

func (l *Local) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Put writes data under key through a temporary file renamed into place,
// so a reader never sees half a file.
func (l *Local) Put(_ context.Context, key string, data []byte, _ string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("filestore: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".upload-*")
	if err != nil {
		return fmt.Errorf("filestore: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("filestore: write %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("filestore: write %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("filestore: %w", err)
	}
	return nil
}

// Get returns the bytes under key; errs.ErrNotFound when none.
func (l *Local) Get(_ context.Context, key string) ([]byte, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errs.NotFound("stored file", strings.TrimPrefix(key, "files/"))
	}
	if err != nil {
		return nil, fmt.Errorf("filestore: %w", err)
	}
	return data, nil
}

// Delete removes the bytes under key; a missing key is no error.
func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("filestore: %w", err)
	}
	return nil
}
