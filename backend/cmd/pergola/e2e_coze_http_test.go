package main

import (
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fileEcho serves a file at /files/report.pdf and, at /upload, answers
// what it received: the content type and, for multipart, each part's
// field, file name and content.
func fileEcho(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/files/report.pdf" {
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = io.WriteString(w, "%PDF-1.4 pretend")
			return
		}
		ctype, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		var b strings.Builder
		b.WriteString(ctype)
		if ctype == "multipart/form-data" {
			mr := multipart.NewReader(r.Body, params["boundary"])
			for p, err := mr.NextPart(); err == nil; p, err = mr.NextPart() {
				data, _ := io.ReadAll(p)
				b.WriteString("|" + p.FormName() + "=" + p.FileName() + ":" + string(data))
			}
		} else {
			data, _ := io.ReadAll(r.Body)
			b.WriteString("|" + string(data))
		}
		_, _ = io.WriteString(w, b.String())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// httpCanvas posts to the echo server's /upload with a body of bodyType.
func httpCanvas(t *testing.T, base, bodyType string) []byte {
	file := cz{"type": "string", "assistType": 1, "value": cz{"type": "ref", "content": cz{"source": "block-output", "blockID": "100001", "name": "file"}}}
	body := cz{"bodyType": bodyType, "bodyData": cz{
		"binary":   cz{"fileURL": file},
		"formData": cz{"data": []cz{czParam("note", czRef("100001", "note", "string")), czParam("doc", file)}}}}
	req := czNode("200", "45", "Upload", cz{"apiInfo": cz{"method": "POST", "url": "  " + base + "/upload  "}, "body": body,
		"headers": []cz{}, "params": []cz{}}, czOut("body", "string"), czOut("statusCode", "integer"))
	return czCanvas(t, []cz{czStart(czOut("file", "string"), czOut("note", "string")), req,
		czEnd(czParam("got", czRef("200", "body", "string")))}, czEdge("100001", "200"), czEdge("200", "900001"))
}

// TestCozeHTTPRequesterBodies: an HTTP node sends form-data with a file
// fetched from its URL (named as Coze names it), or a file's bytes as a
// binary body, through the guarded client; its URL is trimmed. Run and
// stream_run alike.
func TestCozeHTTPRequesterBodies(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			srv := fileEcho(t)
			fileURL := srv.URL + "/files/report.pdf?x-wf-file_name=Q3%20report.pdf"
			params := cz{"file": fileURL, "note": "for review"}

			id := c.importPublished(t, "form", httpCanvas(t, srv.URL, "FORM_DATA"), nil)
			want := "multipart/form-data|doc=Q3 report.pdf:%PDF-1.4 pretend|note=:for review" // fields in name order
			if out := c.runBoth(t, cz{"workflow_id": id, "parameters": params}); out["got"] != want {
				t.Fatalf("form-data arrived as %q, want %q", out["got"], want)
			}
			id = c.importPublished(t, "binary", httpCanvas(t, srv.URL, "BINARY"), nil)
			if out := c.runBoth(t, cz{"workflow_id": id, "parameters": params}); out["got"] != "application/pdf|%PDF-1.4 pretend" {
				t.Fatalf("the binary body arrived as %q", out["got"])
			}
			run := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": id, "parameters": cz{"file": "ftp://x/y"}})
			if !strings.Contains(run.msg, `file URL "ftp://x/y" is not an http(s) URL`) {
				t.Fatalf("a bad file URL: %d %q", run.status, run.msg)
			}
		})
	}
}

// TestCozeHTTPRequesterErrorSwitch: an HTTP requester whose service fails
// takes its error switch as in Coze: with a default output (processType 2)
// the run goes on with dataOnErr, isSuccess false and errorBody; with the
// switch off the run fails naming the status. Run and stream_run.
func TestCozeHTTPRequesterErrorSwitch(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			}))
			t.Cleanup(down.Close)
			canvas := func(onError cz) []byte {
				req := czNode("200", "45", "Call", cz{"apiInfo": cz{"method": "GET", "url": down.URL + "/status"},
					"body": cz{"bodyType": "EMPTY"}, "headers": []cz{}, "params": []cz{}, "settingOnError": onError},
					czOut("body", "string"), czOut("statusCode", "integer"), czOut("isSuccess", "boolean"),
					cz{"name": "errorBody", "type": "object", "schema": []cz{czOut("errorMessage", "string"), czOut("errorCode", "string")}})
				end := []cz{czParam("body", czRef("200", "body", "string"))}
				if onError["processType"] == 2 {
					end = append(end, czParam("ok", czRef("200", "isSuccess", "boolean")),
						czParam("why", czRef("200", "errorBody.errorMessage", "string")), czParam("err", czRef("200", "errorBody", "object")))
				}
				return czCanvas(t, []cz{czStart(czOut("q", "string")), req, czEnd(end...)}, czEdge("100001", "200"), czEdge("200", "900001"))
			}
			id := c.importPublished(t, "fallback", canvas(cz{"switch": true, "processType": 2, "dataOnErr": `{"body":"fallback","statusCode":0}`}), nil)
			out := c.runBoth(t, cz{"workflow_id": id, "parameters": cz{"q": "x"}})
			if why, _ := out["why"].(string); out["body"] != "fallback" || out["ok"] != false || !strings.Contains(why, "503") {
				t.Fatalf("output with the default output = %v", out)
			}
			// The whole errorBody as Coze gives it: errorMessage and errorCode.
			if e, _ := out["err"].(map[string]any); len(e) != 2 || e["errorMessage"] != out["why"] || e["errorCode"] == nil {
				t.Fatalf("errorBody = %v, want {errorMessage, errorCode}", out["err"])
			}
			id = c.importPublished(t, "throws", canvas(cz{"switch": false, "processType": 1}), nil)
			run := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": id, "parameters": cz{"q": "x"}})
			if run.status != 400 || !strings.Contains(run.msg, "503") {
				t.Fatalf("a failing call without the switch: %d %q", run.status, run.msg)
			}
		})
	}
}
