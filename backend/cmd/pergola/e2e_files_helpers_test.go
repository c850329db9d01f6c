package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"testing"
)

// pngBytes is a PNG signature and header padded to n bytes: enough for a
// sniffer to call it image/png.
func pngBytes(n int) []byte {
	b := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), bytes.Repeat([]byte{7}, n)...)
	return b[:max(n, 16)]
}

// upload sends data as the multipart part "file" named name, as the Coze
// SDKs do (part Content-Type application/octet-stream), with an optional
// query such as "?workspace_id=1".
func (s *testServer) upload(t *testing.T, token, name string, data []byte, query string) reply {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(data)
	_ = w.Close()
	return s.sendBody(t, "POST", "/v1/files/upload"+query, token, w.FormDataContentType(), &body)
}

// sendBody sends a body of any content type with a token.
func (s *testServer) sendBody(t *testing.T, method, path, token, contentType string, body io.Reader) reply {
	t.Helper()
	h := map[string]string{"Content-Type": contentType}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return s.send(t, rawRequest{method: method, path: path, header: h, body: body})
}

// newUser creates a user through the admin API and returns a PAT of theirs.
func newUser(t *testing.T, s *testServer, email string) string {
	t.Helper()
	s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{
		"email": email, "name": email, "password": "password-" + email,
	}).must(t, 201)
	login := s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": email, "password": "password-" + email}).must(t, 200)
	pat := s.call(t, "POST", "/api/tokens", str(login.data, "token"), map[string]any{"name": "files"}).must(t, 201)
	return str(pat.data, "token")
}

// objectString is /v3/chat's additional_messages with one object_string
// user message of the given items.
func objectString(t *testing.T, items ...map[string]any) []map[string]any {
	t.Helper()
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	return []map[string]any{{"role": "user", "content": string(b), "content_type": "object_string"}}
}
