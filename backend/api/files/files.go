// Package files serves Coze's file routes: POST /v1/files/upload
// (multipart field "file") and GET /v1/files/retrieve?file_id.
package files

import (
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	fileapp "github.com/pergola-ai/pergola/application/file"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
)

// Handlers serves the file routes.
type Handlers struct {
	Svc *fileapp.Service
}

// FileInfo is Coze's file object.
type FileInfo struct {
	ID        string `json:"id"`
	Bytes     int64  `json:"bytes"`
	CreatedAt int64  `json:"created_at"`
	FileName  string `json:"file_name"`
	MimeType  string `json:"mime_type"`    // Pergola: the type sniffed from the content
	SpaceID   string `json:"workspace_id"` // Pergola: the workspace the file belongs to
}

// NewFileInfo renders a file.
func NewFileInfo(f *file.File) FileInfo {
	return FileInfo{ID: strconv.FormatInt(f.ID, 10), Bytes: f.Bytes, CreatedAt: httpx.Unix(f.CreatedAt), FileName: f.Name,
		MimeType: f.MimeType, SpaceID: strconv.FormatInt(f.WorkspaceID, 10)}
}

// Upload answers POST /v1/files/upload with the stored file. The
// optional workspace_id (query or form) picks the workspace; by default
// the token's only workspace, else the caller's personal one.
func (h Handlers) Upload(ctx context.Context, c *app.RequestContext) error {
	if h.Svc == nil {
		return unavailable()
	}
	fh, err := c.FormFile("file")
	if err != nil {
		return errs.Invalid("file", "is required: send the file as the multipart/form-data part named file")
	}
	data, err := h.read(fh)
	if err != nil {
		return tooLargeStatus(c, err)
	}
	ws, err := workspaceID(c)
	if err != nil {
		return err
	}
	f, err := h.Svc.Upload(ctx, httpx.Caller(c), fileapp.UploadInput{WorkspaceID: ws, Name: fh.Filename, Data: data})
	if err != nil {
		return tooLargeStatus(c, err)
	}
	httpx.OK(c, NewFileInfo(f))
	return nil
}

// read returns the part's bytes, reading at most one byte past the limit.
func (h Handlers) read(fh *multipart.FileHeader) ([]byte, error) {
	max := h.Svc.MaxBytes()
	if fh.Size > max {
		return nil, fileapp.TooLarge(fh.Size, max)
	}
	r, err := fh.Open()
	if err != nil {
		return nil, errs.Invalid("file", "cannot be read: %v", err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, errs.Invalid("file", "cannot be read: %v", err)
	}
	if int64(len(data)) > max {
		return nil, fileapp.TooLarge(int64(len(data)), max)
	}
	return data, nil
}

// tooLargeStatus answers an upload past the size limit with 413, as the
// body limit does; other errors go back unchanged.
func tooLargeStatus(c *app.RequestContext, err error) error {
	var tl *fileapp.TooLargeError
	if errors.As(err, &tl) {
		httpx.FailWith(c, http.StatusRequestEntityTooLarge, httpx.CodeBodyTooLarge, err.Error())
		return nil
	}
	return err
}

func workspaceID(c *app.RequestContext) (int64, error) {
	v := string(c.Query("workspace_id"))
	if v == "" {
		v = string(c.FormValue("workspace_id"))
	}
	if v == "" {
		return 0, nil
	}
	return httpx.ParseID("workspace_id", v)
}

// Retrieve answers GET /v1/files/retrieve?file_id with the file's
// metadata; another workspace's file answers 404 like an unknown one.
func (h Handlers) Retrieve(ctx context.Context, c *app.RequestContext) error {
	if h.Svc == nil {
		return unavailable()
	}
	id, err := httpx.QueryID(c, "file_id", true)
	if err != nil {
		return err
	}
	f, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, NewFileInfo(f))
	return nil
}

func unavailable() error {
	return errs.New(errs.ErrUnavailable, "files are not available in this process")
}
