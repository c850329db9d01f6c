package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// authEcho answers its query and the X-Api-Key header; at /fail it
// answers 404.
func authEcho(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "no such thing", http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, r.URL.RawQuery+"|"+r.Header.Get("X-Api-Key"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// authCanvas GETs url (no body) with Coze's custom auth, its key and value
// read from the start node, added to addTo (query or header).
func authCanvas(t *testing.T, url, addTo string, onError cz) []byte {
	auth := cz{"authOpen": true, "authType": "CUSTOM_AUTH", "authData": cz{"customData": cz{"addTo": addTo, "data": []cz{
		czParam("Key", czRef("100001", "key", "string")), czParam("Value", czRef("100001", "value", "string"))}}}}
	inputs := cz{"apiInfo": cz{"method": "GET", "url": url + "\n"}, "auth": auth, "body": cz{"bodyType": "EMPTY"},
		"headers": []cz{}, "params": []cz{czParam("q", czLit("string", "1"))}}
	if onError != nil {
		inputs["settingOnError"] = onError
	}
	outs := []cz{czOut("body", "string"), czOut("statusCode", "integer")}
	ends := []cz{czParam("body", czRef("200", "body", "string"))}
	if onError != nil {
		outs = append(outs, czOut("isSuccess", "boolean"),
			cz{"name": "errorBody", "type": "object", "schema": []cz{czOut("errorMessage", "string"), czOut("errorCode", "string")}})
		ends = append(ends, czParam("ok", czRef("200", "isSuccess", "boolean")), czParam("code", czRef("200", "errorBody.errorCode", "integer")))
	}
	req := czNode("200", "45", "Call", inputs, outs...)
	end := czEnd(ends...)
	return czCanvas(t, []cz{czStart(czOut("key", "string"), czOut("value", "string")), req, end},
		czEdge("100001", "200"), czEdge("200", "900001"))
}

// TestCozeHTTPRequesterCustomAuth: Coze's custom auth adds its key and
// value, read from inputs, to the query or the headers of a request
// without a body; a 404 with Coze's older error switch (switch on and
// dataOnErr, no processType) gives the default output with isSuccess
// false and errorBody, and the exception branch (processType 3) is
// taken. Run and stream_run.
func TestCozeHTTPRequesterCustomAuth(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			srv := authEcho(t)
			params := cz{"key": "api key", "value": "s&cret"}

			id := c.importPublished(t, "query", authCanvas(t, srv.URL+"/a", "query", nil), nil)
			if out := c.runBoth(t, cz{"workflow_id": id, "parameters": params}); out["body"] != "api+key=s%26cret&q=1|" {
				t.Fatalf("custom auth in the query: %v", out)
			}
			id = c.importPublished(t, "header", authCanvas(t, srv.URL+"/a", "header", nil), nil)
			if out := c.runBoth(t, cz{"workflow_id": id, "parameters": cz{"key": "X-Api-Key", "value": "s3"}}); out["body"] != "q=1|s3" {
				t.Fatalf("custom auth in a header: %v", out)
			}
			older := cz{"switch": true, "dataOnErr": `{"body":"fallback","statusCode":0}`}
			id = c.importPublished(t, "fallback", authCanvas(t, srv.URL+"/fail", "query", older), nil)
			out := c.runBoth(t, cz{"workflow_id": id, "parameters": params})
			if out["body"] != "fallback" || out["ok"] != false || out["code"] != float64(720701013) {
				t.Fatalf("a 404 with the default output: %v", out)
			}
			id = c.importPublished(t, "branch", branchCanvas(t, srv.URL+"/fail"), nil)
			if out := c.runBoth(t, cz{"workflow_id": id, "parameters": params}); out["route"] != "failed" {
				t.Fatalf("a 404 with the exception branch: %v", out)
			}
		})
	}
}

// branchCanvas GETs url; its exception branch (processType 3) and its
// default port reach text nodes an aggregator joins.
func branchCanvas(t *testing.T, url string) []byte {
	req := czNode("200", "45", "Call", cz{"apiInfo": cz{"method": "GET", "url": url}, "body": cz{"bodyType": "EMPTY"},
		"headers": []cz{}, "params": []cz{}, "settingOnError": cz{"switch": true, "processType": 3}},
		czOut("body", "string"), czOut("statusCode", "integer"))
	text := func(id, word string) cz {
		return czNode(id, "15", "Text "+id, cz{"method": "concat", "inputParameters": []cz{},
			"concatParams": []cz{czParam("concatResult", czLit("string", word))}}, czOut("output", "string"))
	}
	agg := czNode("600", "32", "Join", cz{"mergeGroups": []cz{{"name": "Group1", "variables": []cz{
		czRef("400", "output", "string"), czRef("500", "output", "string")}}}}, czOut("Group1", "string"))
	end := czEnd(czParam("route", czRef("600", "Group1", "string")))
	return czCanvas(t, []cz{czStart(czOut("key", "string"), czOut("value", "string")), req, text("400", "fine"), text("500", "failed"), agg, end},
		czEdge("100001", "200"), czEdge("200", "400", "default"), czEdge("200", "500", "branch_error"),
		czEdge("400", "600"), czEdge("500", "600"), czEdge("600", "900001"))
}
