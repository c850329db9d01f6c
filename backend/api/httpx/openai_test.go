package httpx

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/domain/errs"
)

// failed runs Fail on a request to path and decodes the answer.
func failed(t *testing.T, path string, header map[string]string, body string, err error) (int, map[string]any) {
	t.Helper()
	c := app.NewContext(0)
	c.Request.SetRequestURI(path)
	for k, v := range header {
		c.Request.Header.Set(k, v)
	}
	c.Request.SetBodyString(body)
	Fail(context.Background(), c, err)
	var m map[string]any
	if e := json.Unmarshal(c.Response.Body(), &m); e != nil {
		t.Fatalf("%s: body is not JSON: %s", path, c.Response.Body())
	}
	return c.Response.StatusCode(), m
}

func TestFailSpeaksOpenAIOnTheOpenAIRoutes(t *testing.T) {
	cases := []struct {
		path       string
		err        error
		status     int
		typ, param string
		code       any
	}{
		{"/v1/chat/completions", errs.Invalid("messages[0].role", "bad"), 400, "invalid_request_error", "messages[0].role", nil},
		{"/v1/models", errs.Unauthenticated("authentication is invalid"), 401, "invalid_request_error", "", "invalid_api_key"},
		{"/v1/responses/resp_1_2", WithOpenAICode(errs.NotFound("model", "x"), OpenAIModelNotFound, "model"), 404, "invalid_request_error", "model", "model_not_found"},
		{"/v1/responses", fmt.Errorf("x: %w", errs.ErrRateLimited), 429, "rate_limit_error", "", "rate_limit_exceeded"},
		{"/v1/models/7", errs.Forbidden("no"), 403, "permission_error", "", nil},
	}
	for _, tc := range cases {
		status, body := failed(t, tc.path, nil, "", tc.err)
		e, ok := body["error"].(map[string]any)
		if status != tc.status || !ok || e["type"] != tc.typ || e["code"] != tc.code || e["message"] != tc.err.Error() {
			t.Errorf("%s %v: %d %v", tc.path, tc.err, status, body)
			continue
		}
		if want := any(tc.param); tc.param == "" && e["param"] != nil || tc.param != "" && e["param"] != want {
			t.Errorf("%s: param %v, want %q", tc.path, e["param"], tc.param)
		}
	}
	// Not an OpenAI route: the envelope, even under /v1.
	status, body := failed(t, "/v1/modelsx", nil, "", errs.NotFound("bot", "1"))
	if status != 404 || body["code"] != float64(CodeNotFound) {
		t.Fatalf("/v1/modelsx: %d %v", status, body)
	}
}

func TestFailAnswersACozeSDKStreamWith200(t *testing.T) {
	sdk := map[string]string{cozeClientHeader: `{"lang":"js"}`}
	cases := []struct {
		path, body string
		header     map[string]string
		status     int
	}{
		{"/v3/chat", `{"stream":true}`, sdk, 200},
		{"/v3/chat", `{"stream":false}`, sdk, 404},
		{"/v3/chat", `{"stream":true}`, nil, 404},
		{"/v1/workflow/stream_run", `{}`, sdk, 200},
		{"/v1/workflow/run", `{}`, sdk, 404},
	}
	for _, tc := range cases {
		status, body := failed(t, tc.path, tc.header, tc.body, errs.NotFound("bot", "1"))
		if status != tc.status || body["code"] != float64(CodeNotFound) || body["msg"] != "bot 1 not found" {
			t.Errorf("%s %s %v: %d %v; want %d with the envelope", tc.path, tc.body, tc.header, status, body, tc.status)
		}
	}
}

func TestFailWithSpeaksOpenAIOnTheOpenAIRoutes(t *testing.T) {
	c := app.NewContext(0)
	c.Request.SetRequestURI("/v1/responses")
	FailWith(c, 413, CodeBodyTooLarge, "the body is over 1048576 bytes")
	var m map[string]map[string]any
	if err := json.Unmarshal(c.Response.Body(), &m); err != nil || c.Response.StatusCode() != 413 {
		t.Fatalf("%d %s", c.Response.StatusCode(), c.Response.Body())
	}
	if e := m["error"]; e["code"] != OpenAIBodyTooLarge || e["type"] != "invalid_request_error" || e["message"] != "the body is over 1048576 bytes" {
		t.Fatalf("error = %v", e)
	}
	if !c.IsAborted() {
		t.Fatal("the chain goes on after FailWith")
	}
}
