package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// headersServer answers "ok" with two values of X-Multi, a header set
// under a lower-case name, one holding HTML characters, and no Date.
func headersServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Date"] = nil
		h.Set("Content-Type", "text/plain")
		h.Add("X-Multi", "a")
		h.Add("X-Multi", "b")
		h["x-lower"] = []string{"v"}
		h.Set("X-Html", "<b>&")
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCozeHTTPRequesterHeaders: in an imported workflow the HTTP
// requester's headers output is Coze's JSON text, the last value of each
// header under its canonical name; in Pergola's own workflows it is an
// object of the first value under the lower-case name. Run and
// stream_run against a local server.
func TestCozeHTTPRequesterHeaders(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			srv := headersServer(t)
			req := czNode("200", "45", "Call", cz{"apiInfo": cz{"method": "GET", "url": srv.URL}, "body": cz{"bodyType": "EMPTY"},
				"headers": []cz{}, "params": []cz{}}, czOut("body", "string"), czOut("statusCode", "integer"), czOut("headers", "string"))
			end := czEnd(czParam("headers", czRef("200", "headers", "string")))
			id := c.importPublished(t, "headers", czCanvas(t, []cz{czStart(), req, end}, czEdge("100001", "200"), czEdge("200", "900001")), nil)
			want := map[string]any{"headers": `{"Content-Length":"2","Content-Type":"text/plain",` +
				`"X-Html":"\u003cb\u003e\u0026","X-Lower":"v","X-Multi":"b"}`}
			if got := c.runBoth(t, cz{"workflow_id": id}); !cmp.Equal(got, want) {
				t.Errorf("compat coze (-want +got):\n%s", cmp.Diff(want, got))
			}
			own := c.workflow(t, "own_headers", "", `{"nodes": [{"id": "start", "type": "start"},
			  {"id": "get", "type": "http", "config": {"method": "GET", "url": "`+srv.URL+`"}},
			  {"id": "end", "type": "end", "inputs": {"headers": {"ref": {"node": "get", "path": "headers"}}}}],
			 "edges": [{"from": "start", "to": "get"}, {"from": "get", "to": "end"}]}`, true)
			want = map[string]any{"headers": map[string]any{"content-length": "2", "content-type": "text/plain",
				"x-html": "<b>&", "x-lower": "v", "x-multi": "a"}}
			if got := c.runBoth(t, cz{"workflow_id": own}); !cmp.Equal(got, want) {
				t.Errorf("Pergola's own workflow (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}
