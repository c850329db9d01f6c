package file

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
	"github.com/pergola-ai/pergola/domain/identity"
)

type memBlobs struct {
	data map[string][]byte
	puts int
}

func (m *memBlobs) Put(_ context.Context, key string, data []byte, _ string) error {
	m.data[key] = data
	m.puts++
	return nil
}

func (m *memBlobs) Get(_ context.Context, key string) ([]byte, error) {
	d, ok := m.data[key]
	if !ok {
		return nil, errs.ErrNotFound
	}
	return d, nil
}

func (m *memBlobs) Delete(_ context.Context, key string) error { delete(m.data, key); return nil }

type memStore struct {
	files map[int64]*file.File
	fail  error
}

func (m *memStore) CreateFile(_ context.Context, f *file.File) error {
	if m.fail != nil {
		return m.fail
	}
	m.files[f.ID] = f
	return nil
}

func (m *memStore) GetFile(_ context.Context, id int64) (*file.File, error) {
	if f, ok := m.files[id]; ok {
		return f, nil
	}
	return nil, file.NotFound(id)
}

func (m *memStore) DeleteFile(context.Context, int64, int64) error { return nil }

// members: user 1 is a member of workspace 10 (personal) and 11.
type members struct{}

func (members) Authorize(_ context.Context, p identity.Principal, ws int64, _ identity.Role) (*identity.Member, error) {
	if p.UserID == 1 && (ws == 10 || ws == 11) && p.TokenAllowsWorkspace(ws) {
		return &identity.Member{}, nil
	}
	return nil, errs.Forbidden("you are not a member of workspace %d", ws)
}

func (members) PersonalWorkspace(_ context.Context, user int64) (int64, error) {
	if user == 1 {
		return 10, nil
	}
	return 0, errs.ErrNotFound
}

type seq struct{ n int64 }

func (s *seq) Next() int64 { s.n++; return s.n }

func newService(store *memStore, blobs *memBlobs) *Service {
	return New(store, blobs, members{}, &seq{n: 100}, 1000, nil)
}

var caller = identity.Principal{UserID: 1, Scopes: []string{identity.ScopeAll}}

func TestUploadPicksTheWorkspace(t *testing.T) {
	store, blobs := &memStore{files: map[int64]*file.File{}}, &memBlobs{data: map[string][]byte{}}
	s := newService(store, blobs)
	ctx := context.Background()
	png := []byte("\x89PNG\r\n\x1a\nxxxx")
	f, err := s.Upload(ctx, caller, UploadInput{Name: "a.png", Data: png})
	if err != nil || f.WorkspaceID != 10 || f.StorageKey != "files/10/101" || string(blobs.data["files/10/101"]) != string(png) {
		t.Fatalf("upload to the personal workspace: %+v, %v", f, err)
	}
	only11 := caller
	only11.Workspaces = []int64{11}
	if f, err = s.Upload(ctx, only11, UploadInput{Name: "a.png", Data: png}); err != nil || f.WorkspaceID != 11 {
		t.Fatalf("a token of workspace 11 uploads to %+v, %v", f, err)
	}
	if _, err = s.Upload(ctx, only11, UploadInput{WorkspaceID: 10, Name: "a.png", Data: png}); !errors.Is(err, errs.ErrForbidden) {
		t.Fatalf("a token of workspace 11 uploading to 10: %v", err)
	}
	if _, err = s.Get(ctx, only11, 101); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("a token of workspace 11 reads a file of 10: %v", err)
	}
	chatOnly := identity.Principal{UserID: 1, Scopes: []string{identity.ScopeWorkflow}}
	if _, err = s.Upload(ctx, chatOnly, UploadInput{Name: "a.png", Data: png}); !errors.Is(err, errs.ErrForbidden) {
		t.Fatalf("a token without the chat scope: %v", err)
	}
}

// TestUploadLeavesNothingBehind: bad input stores no bytes, and bytes
// whose metadata cannot be stored are removed again.
func TestUploadLeavesNothingBehind(t *testing.T) {
	store, blobs := &memStore{files: map[int64]*file.File{}}, &memBlobs{data: map[string][]byte{}}
	s := newService(store, blobs)
	ctx := context.Background()
	var tooLarge *TooLargeError
	if _, err := s.Upload(ctx, caller, UploadInput{Name: "a.txt", Data: []byte(strings.Repeat("a", 1001))}); !errors.As(err, &tooLarge) || !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("1001 bytes over a limit of 1000: %v", err)
	}
	if _, err := s.Upload(ctx, caller, UploadInput{Name: "a.txt"}); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("empty: %v", err)
	}
	if blobs.puts != 0 {
		t.Fatalf("bad input stored %d blobs", blobs.puts)
	}
	store.fail = errors.New("database down")
	if _, err := s.Upload(ctx, caller, UploadInput{Name: "a.txt", Data: []byte("hello")}); err == nil {
		t.Fatal("upload succeeded with the metadata store down")
	}
	if blobs.puts != 1 || len(blobs.data) != 0 {
		t.Fatalf("after a failed metadata store: %d puts, %d blobs left", blobs.puts, len(blobs.data))
	}
}
