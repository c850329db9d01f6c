package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesUploadAndRetrieve drives /v1/files on both back ends: the
// stored file reads back with Coze's fields, its bytes sit on disk under a
// name made of ids, and every bad upload is refused with a message.
func TestFilesUploadAndRetrieve(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			env := b.env(t)
			env["PERGOLA_FILES_DIR"] = dir
			env["PERGOLA_MAX_BODY_BYTES"] = "32768"
			env["PERGOLA_FILES_MAX_BYTES"] = "100000"
			s := startServer(t, env)
			testUploadAndRetrieve(t, s, dir)
			testUploadRefusals(t, s)
			testFilesOfOtherWorkspaces(t, s)
		})
	}
}

func testUploadAndRetrieve(t *testing.T, s *testServer, dir string) {
	data := pngBytes(60000) // past PERGOLA_MAX_BODY_BYTES: the upload route has its own limit
	up := s.upload(t, bootstrapToken, "/home/me/pictures/cat.png", data, "").must(t, 200)
	id := str(up.data, "id")
	if id == "" || up.data["bytes"] != float64(len(data)) || str(up.data, "file_name") != "cat.png" ||
		str(up.data, "mime_type") != "image/png" || up.data["created_at"].(float64) < 1.7e9 {
		t.Fatalf("upload answered %v", up.data)
	}
	got := s.call(t, "GET", "/v1/files/retrieve?file_id="+id, bootstrapToken, nil).must(t, 200)
	for _, k := range []string{"id", "bytes", "created_at", "file_name", "mime_type", "workspace_id"} {
		if got.data[k] != up.data[k] {
			t.Errorf("retrieve %s = %v, upload said %v", k, got.data[k], up.data[k])
		}
	}
	stored, err := os.ReadFile(filepath.Join(dir, "files", str(up.data, "workspace_id"), id))
	if err != nil || !bytes.Equal(stored, data) {
		t.Fatalf("bytes on disk: %d bytes, %v; want the %d uploaded", len(stored), err, len(data))
	}
	// Another route keeps the general body limit.
	big := `{"name":"` + strings.Repeat("x", 40000) + `"}`
	s.call(t, "POST", "/api/workspaces", bootstrapToken, big).fails(t, 413, 4001, "PERGOLA_MAX_BODY_BYTES")
}

func testUploadRefusals(t *testing.T, s *testServer) {
	s.upload(t, bootstrapToken, "big.png", pngBytes(100001), "").fails(t, 413, 4001, "limit is 100000 bytes")
	s.upload(t, bootstrapToken, "empty.txt", nil, "").fails(t, 400, 4000, "empty")
	s.upload(t, bootstrapToken, "tool", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...), "").
		fails(t, 400, 4000, "not accepted")
	s.upload(t, bootstrapToken, "run.sh", []byte("#!/bin/sh\nrm -rf /\n"), "").fails(t, 400, 4000, ".sh files are not accepted")
	s.upload(t, bootstrapToken, "page.png", []byte("<html><script>alert(1)</script></html>"), "").
		fails(t, 400, 4000, "text/html is not accepted")
	s.sendBody(t, "POST", "/v1/files/upload", bootstrapToken, "multipart/form-data; boundary=x", strings.NewReader("--x--\r\n")).
		fails(t, 400, 4000, "part named file")
	s.upload(t, "", "a.txt", []byte("hello"), "").fails(t, 401, 4100, "")
	s.call(t, "GET", "/v1/files/retrieve?file_id=123456", bootstrapToken, nil).fails(t, 404, 4200, "file 123456 not found")
	s.call(t, "GET", "/v1/files/retrieve", bootstrapToken, nil).fails(t, 400, 4000, "file_id")
	txt := s.upload(t, bootstrapToken, "notes.txt", []byte("plain notes"), "").must(t, 200)
	if str(txt.data, "mime_type") != "text/plain" {
		t.Fatalf("a text file is %v", txt.data)
	}
}

// testFilesOfOtherWorkspaces: a file is read only by members of its
// workspace; to anyone else it answers as unknown.
func testFilesOfOtherWorkspaces(t *testing.T, s *testServer) {
	bob := newUser(t, s, "bob@files.test")
	adminFile := str(s.upload(t, bootstrapToken, "a.png", pngBytes(100), "").must(t, 200).data, "id")
	bobFile := s.upload(t, bob, "b.png", pngBytes(100), "").must(t, 200).data
	s.call(t, "GET", "/v1/files/retrieve?file_id="+adminFile, bob, nil).fails(t, 404, 4200, "file "+adminFile+" not found")
	s.call(t, "GET", "/v1/files/retrieve?file_id="+str(bobFile, "id"), bootstrapToken, nil).fails(t, 404, 4200, "not found")
	s.call(t, "GET", "/v1/files/retrieve?file_id="+str(bobFile, "id"), bob, nil).must(t, 200)
	// Bob cannot upload into the admin's workspace either.
	adminWS := str(s.call(t, "GET", "/v1/files/retrieve?file_id="+adminFile, bootstrapToken, nil).must(t, 200).data, "workspace_id")
	s.upload(t, bob, "c.png", pngBytes(100), "?workspace_id="+adminWS).fails(t, 403, 4101, "not a member")
}
