package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	exportDir      = "../../../workflow/cozeimport/testdata/export"
	exportBottomID = "7400000000000000001"
	exportMiddleID = "7400000000000000002"
	exportTopID    = "7400000000000000003"
)

// exportFiles reads the files of the test export, by name.
func exportFiles(t *testing.T) map[string][]byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(exportDir, "*"))
	files := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = b
	}
	if len(files) != 4 {
		t.Fatalf("the test export has %d files, want 3 canvases and a manifest", len(files))
	}
	return files
}

// zipFiles zips files into a folder, as a user zipping a folder does.
func zipFiles(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range files {
		w, err := zw.Create("my-coze-export/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// uploadExport posts the file as a Coze user would with curl -F: the file in
// the part "file", the other fields as form values.
func (s *testServer) uploadExport(t *testing.T, path string, fields map[string]string, name string, file []byte) reply {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(file)
	mw.Close()
	req, _ := http.NewRequest("POST", s.base+path, &body)
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header}
	if err := json.Unmarshal(raw, &r.raw); err != nil {
		t.Fatalf("POST %s: body is not JSON: %s", path, raw)
	}
	code, _ := r.raw["code"].(float64)
	r.code, r.msg = int(code), str(r.raw, "msg")
	r.data, _ = r.raw["data"].(map[string]any)
	return r
}

// workflowCount counts the workflows of the workspace.
func (c *chatSetup) workflowCount(t *testing.T) int {
	t.Helper()
	list := c.s.call(t, "GET", "/api/workflows?workspace_id="+c.ws, bootstrapToken, nil).must(t, 200)
	return len(items(t, list.data, "items"))
}

// importedWorkflows returns the workflows an import answered, in order.
func importedWorkflows(t *testing.T, r reply) []map[string]any {
	t.Helper()
	return items(t, r.data, "workflows")
}

// withCanvas returns files with one canvas changed by replace.
func withCanvas(files map[string][]byte, name, old, new string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range files {
		out[k] = v
	}
	out[name] = []byte(strings.Replace(string(files[name]), old, new, 1))
	return out
}

// mustFail checks a refused import: 400, the message naming each of
// want, and nothing created.
func (c *chatSetup) mustFail(t *testing.T, r reply, before int, want ...string) {
	t.Helper()
	if r.status != 400 || r.code != 4000 {
		t.Fatalf("status %d code %d msg %q, want 400 and 4000", r.status, r.code, r.msg)
	}
	for _, w := range want {
		if !strings.Contains(r.msg, w) {
			t.Fatalf("msg %q does not name %q", r.msg, w)
		}
	}
	if n := c.workflowCount(t); n != before {
		t.Fatalf("a refused import left %d workflows, want %d", n, before)
	}
}
