package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	fileapp "github.com/pergola-ai/pergola/application/file"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/domain/file"
	"github.com/pergola-ai/pergola/infra/filestore"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// uploadSlack is what a multipart body may carry past the file itself:
// boundaries, part headers, a workspace_id field.
const uploadSlack = 64 << 10

// uploadBodyBytes is the body limit of the upload route.
func uploadBodyBytes(cfg config.Config) int { return cfg.Files.MaxBytes + uploadSlack }

// newFiles wires the file use cases on the configured store of bytes: the
// S3-compatible bucket when PERGOLA_S3_ENDPOINT is set (checked now, so a
// wrong endpoint, key or bucket fails the start), else local disk.
func newFiles(ctx context.Context, cfg config.Config, db *sqlstore.DB, ident *identityapp.Service, log *slog.Logger) (*fileapp.Service, error) {
	blobs, err := fileBlobs(ctx, cfg.Files, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	access := convAccess{Service: ident, workspaces: db.Workspaces()}
	return fileapp.New(db.Files(), blobs, access, db.IDs(), int64(cfg.Files.MaxBytes), log), nil
}

func fileBlobs(ctx context.Context, c config.Files, dataDir string) (file.Blobs, error) {
	if c.S3Endpoint == "" {
		dir := c.Dir
		if dir == "" {
			dir = filepath.Join(dataDir, "files")
		}
		return filestore.NewLocal(dir)
	}
	s3, err := filestore.NewS3(filestore.S3Config{Endpoint: c.S3Endpoint, Bucket: c.S3Bucket,
		AccessKey: c.S3AccessKey, SecretKey: c.S3SecretKey, Region: c.S3Region})
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s3.Check(cctx); err != nil {
		return nil, fmt.Errorf("PERGOLA_S3_ENDPOINT: %w", err)
	}
	return s3, nil
}
