package workflow

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
)

// fetched is a file an HTTP node sends: read from its URL through the
// same guarded client, bounded by the engine's body limit.
type fetched struct {
	name, contentType string
	data              []byte
}

// fetchFile reads the file at raw, which must be an http(s) URL. Its name
// is Coze's x-wf-file_name query parameter when present, else the name
// the run noted when a typed input dropped that parameter, else the last
// segment of the path.
func fetchFile(ctx context.Context, doer HTTPDoer, raw string, limit int64) (*fetched, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("file URL %q is not an http(s) URL", raw)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := doer.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch file %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("fetch file %s: %s", u.Redacted(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("fetch file %s: %w", u.Redacted(), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("file %s is larger than %d bytes", u.Redacted(), limit)
	}
	name := u.Query().Get(fileNameParam)
	if name == "" {
		name = fileNameOf(ctx, raw)
	}
	if name == "" {
		name = path.Base(u.Path)
	}
	ctype := resp.Header.Get("Content-Type")
	if ctype == "" {
		ctype = http.DetectContentType(data)
	}
	return &fetched{name: name, contentType: ctype, data: data}, nil
}

// multipart writes the form as multipart/form-data: fields as text, the
// file fields as the files their URLs name.
func (p *httpPlan) multipart(ctx context.Context, doer HTTPDoer, in map[string]any) (io.Reader, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, k := range p.fk {
		value := p.form[k].render(in)
		if !slices.Contains(p.files, k) {
			if err := w.WriteField(k, value); err != nil {
				return nil, "", err
			}
			continue
		}
		f, err := fetchFile(ctx, doer, strings.TrimSpace(value), p.limit)
		if err != nil {
			return nil, "", fmt.Errorf("form field %s: %w", k, err)
		}
		part, err := w.CreateFormFile(k, f.name)
		if err != nil {
			return nil, "", err
		}
		if _, err := part.Write(f.data); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return &buf, w.FormDataContentType(), nil
}
