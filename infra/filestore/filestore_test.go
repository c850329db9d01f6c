package filestore

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
)

// fakeS3 starts gofakes3, an in-memory server of the S3 protocol over
// HTTP, and returns a store on a bucket created in it. The client signs
// and sends real S3 requests; gofakes3 does not check the signatures.
func fakeS3(t *testing.T) *S3 {
	t.Helper()
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(srv.Close)
	s, err := NewS3(S3Config{Endpoint: srv.URL, Bucket: "pergola-files", AccessKey: "ak", SecretKey: "sk", Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Check(ctx); err == nil {
		t.Fatal("Check passed on a bucket that does not exist")
	}
	if err := s.client.MakeBucket(ctx, "pergola-files", minioBucketOptions()); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	return s
}

func TestBlobs(t *testing.T) {
	stores := map[string]func(t *testing.T) file.Blobs{
		"local": func(t *testing.T) file.Blobs {
			l, err := NewLocal(filepath.Join(t.TempDir(), "files"))
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		"s3": func(t *testing.T) file.Blobs { return fakeS3(t) },
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) { testBlobs(t, open(t)) })
	}
}

func testBlobs(t *testing.T, b file.Blobs) {
	ctx := context.Background()
	key := file.StorageKey(7, 42)
	data := []byte("\x89PNG\r\n\x1a\n some bytes")
	if _, err := b.Get(ctx, key); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
	if err := b.Put(ctx, key, data, "image/png"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	got, err := b.Get(ctx, key)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %q, %v; want %q", got, err, data)
	}
	if err := b.Put(ctx, key, []byte("replaced"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Get(ctx, key); string(got) != "replaced" {
		t.Fatalf("after a second Put Get = %q", got)
	}
	if err := b.Delete(ctx, key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := b.Get(ctx, key); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := b.Delete(ctx, key); err != nil {
		t.Fatalf("Delete of a missing key: %v", err)
	}
	for _, bad := range []string{"../etc/passwd", "files/1/../../x", "files/1/a", "/files/1/2", "files/1/2/3"} {
		if err := b.Put(ctx, bad, data, ""); err == nil {
			t.Errorf("Put accepted the key %q", bad)
		}
	}
}

// TestLocalLeavesNoTemporaryFiles: a Put renames its temporary file into
// place, so the directory holds the file only.
func TestLocalLeavesNoTemporaryFiles(t *testing.T) {
	root := t.TempDir()
	l, err := NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Put(context.Background(), file.StorageKey(1, 2), []byte("x"), ""); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(root, "files", "1"))
	if err != nil || len(entries) != 1 || entries[0].Name() != "2" {
		t.Fatalf("directory holds %v (%v), want just 2", entries, err)
	}
}

func TestNewS3RefusesBadSettings(t *testing.T) {
	for _, c := range []S3Config{
		{Endpoint: "s3.amazonaws.com", Bucket: "b"},
		{Endpoint: "ftp://host", Bucket: "b"},
		{Endpoint: "https://host/path", Bucket: "b"},
		{Endpoint: "https://host"},
	} {
		if _, err := NewS3(c); err == nil {
			t.Errorf("NewS3(%+v) succeeded", c)
		}
	}
}
