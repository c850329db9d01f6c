package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// oaError returns the {"error":{...}} object of an OpenAI-shaped failure
// and checks the status and that nothing of Pergola's envelope is there.
func oaError(t *testing.T, r reply, status int) map[string]any {
	t.Helper()
	e, ok := r.raw["error"].(map[string]any)
	if r.status != status || !ok {
		t.Fatalf("status %d body %v; want %d with an OpenAI error", r.status, r.raw, status)
	}
	if _, envelope := r.raw["code"]; envelope {
		t.Fatalf("Pergola's envelope on an OpenAI route: %v", r.raw)
	}
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := e[k]; !ok {
			t.Fatalf("the error lacks %q: %v", k, e)
		}
	}
	return e
}

// TestOpenAIModelsAndErrors lists the bots a token may use as OpenAI
// models, and checks OpenAI's error shape on the OpenAI routes (auth,
// unknown model, bad role, unknown route) while other routes keep
// Pergola's envelope.
func TestOpenAIModelsAndErrors(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			botID := c.bot(t, map[string]any{"name": "Listed", "prompt": "p", "model": map[string]any{"model_id": "fake"}})
			draft := s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Draft",
				"prompt": "p", "model": map[string]any{"model_id": "fake"}}).must(t, 201)
			sdkOnly := str(s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "SDK only",
				"prompt": "p", "model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
			s.call(t, "POST", "/api/bots/"+sdkOnly+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{"999"}}).must(t, 201)

			list := s.call(t, "GET", "/v1/models", bootstrapToken, nil)
			if list.status != 200 || list.raw["object"] != "list" {
				t.Fatalf("models: %d %v", list.status, list.raw)
			}
			data := list.raw["data"].([]any)
			if len(data) != 1 {
				t.Fatalf("models = %v; want only the bot published to the API (not the draft %s, not the SDK-only %s)", data, str(draft.data, "id"), sdkOnly)
			}
			m := data[0].(map[string]any)
			if m["id"] != botID || m["object"] != "model" || m["owned_by"] != "workspace-"+c.ws || m["created"].(float64) <= 0 || m["name"] != "Listed" {
				t.Fatalf("model = %v", m)
			}
			one := s.call(t, "GET", "/v1/models/"+botID, bootstrapToken, nil)
			if one.status != 200 || one.raw["id"] != botID || one.raw["object"] != "model" {
				t.Fatalf("model %s: %d %v", botID, one.status, one.raw)
			}
			if e := oaError(t, s.call(t, "GET", "/v1/models/gpt-4o", bootstrapToken, nil), 404); e["code"] != "model_not_found" || e["param"] != "model" {
				t.Fatalf("unknown model: %v", e)
			}
			if e := oaError(t, s.call(t, "GET", "/v1/models/"+sdkOnly, bootstrapToken, nil), 403); !strings.Contains(str(e, "message"), "1024") {
				t.Fatalf("a bot not published to the API: %v", e)
			}

			hi := []map[string]any{{"role": "user", "content": "hi"}}
			e := oaError(t, s.call(t, "POST", "/v1/chat/completions", "pat_wrong", map[string]any{"model": botID, "messages": hi}), 401)
			if e["type"] != "invalid_request_error" || e["code"] != "invalid_api_key" || str(e, "message") == "" {
				t.Fatalf("bad key: %v", e)
			}
			e = oaError(t, s.call(t, "GET", "/v1/models", "", nil), 401)
			if e["type"] != "invalid_request_error" {
				t.Fatalf("no key: %v", e)
			}
			e = oaError(t, s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": "999999999999", "messages": hi}), 404)
			if e["code"] != "model_not_found" || e["type"] != "invalid_request_error" || e["param"] != "model" {
				t.Fatalf("unknown bot: %v", e)
			}
			e = oaError(t, s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID,
				"messages": []map[string]any{{"role": "wizard", "content": "hi"}}}), 400)
			if e["param"] != "messages[0].role" || e["type"] != "invalid_request_error" || !strings.Contains(str(e, "message"), "wizard") {
				t.Fatalf("bad role: %v", e)
			}
			e = oaError(t, s.call(t, "GET", "/v1/chat/completions", bootstrapToken, nil), 405)
			if !strings.Contains(str(e, "message"), "GET") {
				t.Fatalf("wrong method: %v", e)
			}

			embeddings(t, c)

			// Any other /v1 path is OpenAI's unknown URL; Coze's voice and template
			// routes say they are not supported, in a body both SDKs read.
			e = oaError(t, s.call(t, "POST", "/v1/batches", bootstrapToken, map[string]any{}), 404)
			if e["type"] != "invalid_request_error" || !strings.Contains(str(e, "message"), "POST /v1/batches") {
				t.Fatalf("unknown /v1 route: %v", e)
			}
			for _, path := range []string{"/v1/audio/speech", "/v1/templates/7/duplicate"} {
				r := s.call(t, "POST", path, bootstrapToken, map[string]any{})
				e, _ := r.raw["error"].(map[string]any)
				if r.status != 501 || r.code != 5010 || !strings.HasPrefix(r.msg, "not supported") || e["message"] != r.msg {
					t.Fatalf("%s: %d %v", path, r.status, r.raw)
				}
			}

			// Elsewhere Pergola's envelope stays, and a 405 has its own code.
			s.call(t, "GET", "/v1/bots/999999999999", "pat_wrong", nil).fails(t, 401, 4100, "")
			s.call(t, "DELETE", "/v1/workspaces", bootstrapToken, nil).fails(t, 405, 4050, "DELETE")
		})
	}
}

// TestOpenAIRequestTools sends function tools with a chat completion:
// they reach the model beside the bot's client tools, a call of one ends
// the turn with tool_calls, tool_choice "none" and a named function reach
// the model, and what cannot be honoured is refused with a 400 naming the
// field.
func TestOpenAIRequestTools(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			botID := c.bot(t, map[string]any{"name": "T", "prompt": "p", "model": map[string]any{"model_id": "fake"},
				"client_tools": []map[string]any{{"name": "lookup", "parameters": map[string]any{"type": "object"}}}})
			weather := map[string]any{"type": "function", "function": map[string]any{"name": "get_weather", "description": "weather of a city",
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}
			complete := func(body map[string]any) reply {
				body["model"] = botID
				return s.call(t, "POST", "/v1/chat/completions", bootstrapToken, body)
			}
			ask := []map[string]any{{"role": "user", "content": `#call get_weather {"city":"Oslo"}`}}
			r := complete(map[string]any{"messages": ask, "tools": []any{weather}})
			if r.status != 200 {
				t.Fatalf("%d %v", r.status, r.raw)
			}
			choice := r.raw["choices"].([]any)[0].(map[string]any)
			calls, _ := choice["message"].(map[string]any)["tool_calls"].([]any)
			if choice["finish_reason"] != "tool_calls" || len(calls) != 1 {
				t.Fatalf("choice = %v", choice)
			}
			tc := calls[0].(map[string]any)
			if fn := tc["function"].(map[string]any); fn["name"] != "get_weather" || fn["arguments"] != `{"city":"Oslo"}` {
				t.Fatalf("call = %v", tc)
			}
			offered := toolNames(c.llm.Requests()[len(c.llm.Requests())-1].Tools)
			if offered != "get_weather,lookup" {
				t.Fatalf("the model was offered %s; want the bot's lookup and the request's get_weather", offered)
			}
			ask = append(ask, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{tc}},
				map[string]any{"role": "tool", "tool_call_id": str(tc, "id"), "content": "12C"})
			r = complete(map[string]any{"messages": ask, "tools": []any{weather}})
			if r.status != 200 || r.raw["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"] != "tool said: 12C" {
				t.Fatalf("after the tool: %d %v", r.status, r.raw)
			}

			hi := []map[string]any{{"role": "user", "content": "hi"}}
			complete(map[string]any{"messages": hi, "tools": []any{weather}, "tool_choice": "none"}).must(t, 200)
			if got := c.llm.Requests()[len(c.llm.Requests())-1].ToolChoice; got != `"none"` {
				t.Fatalf("tool_choice none reached the model as %q", got)
			}
			complete(map[string]any{"messages": hi, "tools": []any{weather},
				"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}}).must(t, 200)
			if got := c.llm.Requests()[len(c.llm.Requests())-1].ToolChoice; !strings.Contains(got, `"get_weather"`) {
				t.Fatalf("a named tool_choice reached the model as %q", got)
			}

			for _, bad := range []struct {
				body  map[string]any
				param string
			}{
				{map[string]any{"tools": []any{map[string]any{"type": "web_search"}}}, "tools[0].type"},
				{map[string]any{"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "bad name"}}}}, "tools[0].name"},
				{map[string]any{"tools": []any{weather}, "tool_choice": "sometimes"}, "tool_choice"},
				{map[string]any{"tools": []any{weather}, "tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "nope"}}}, "tool_choice.function.name"},
			} {
				bad.body["messages"] = hi
				if e := oaError(t, complete(bad.body), 400); e["param"] != bad.param {
					t.Fatalf("%v: param %v, want %s (%v)", bad.body, e["param"], bad.param, e)
				}
			}
		})
	}
}

func toolNames(tools []fakellm.Tool) string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Function.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// TestCozeStreamedErrorsReachTheSDK: a Coze SDK's streamed call that fails
// before the stream is answered 200 with the envelope, which @coze/api
// reads (it cannot read the body of a non-2xx stream); other callers get
// the real status.
func TestCozeStreamedErrorsReachTheSDK(t *testing.T) {
	s := startServer(t, nil)
	post := func(path string, sdk bool, body string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+bootstrapToken)
		req.Header.Set("Content-Type", "application/json")
		if sdk {
			req.Header.Set("X-Coze-Client-User-Agent", `{"lang":"js"}`)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: not JSON: %s", path, raw)
		}
		return resp.StatusCode, m
	}
	for _, tc := range []struct {
		path, body string
		sdkStatus  int
	}{
		{"/v3/chat", `{"bot_id":"999999999999","stream":true,"additional_messages":[]}`, 200},
		{"/v3/chat", `{"bot_id":"999999999999","user_id":"u","stream":false,"additional_messages":[{"role":"user","content":"x","content_type":"text"}]}`, 404}, // not streamed: the real status
		{"/v1/workflow/stream_run", `{"workflow_id":"999999999999"}`, 200},
	} {
		status, body := post(tc.path, true, tc.body)
		if status != tc.sdkStatus || body["code"].(float64) == 0 || str(body, "msg") == "" {
			t.Fatalf("%s %s from the SDK: %d %v; want %d with code and msg", tc.path, tc.body, status, body, tc.sdkStatus)
		}
		if status, _ := post(tc.path, false, tc.body); status < 400 {
			t.Fatalf("%s without the SDK header: %d; want the real status", tc.path, status)
		}
	}
}

// TestCozeBotRetrieveListsBoundWorkflows: bots.retrieve shows the
// workflows a bot binds in workflow_info_list, and its plugins (a
// built-in's name and tools described) in plugin_info_list, published and
// draft.
func TestCozeBotRetrieveListsBoundWorkflows(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			weather := c.workflow(t, "weather_report", "tells the weather of a city", weatherWorkflow, true)
			calc := calculatorID(t, c.s, c.ws)
			botID := c.bot(t, map[string]any{"name": "W", "prompt": "p", "model": map[string]any{"model_id": "fake"},
				"workflows": []map[string]any{{"workflow_id": weather}}, "plugins": []map[string]any{{"plugin_id": calc, "tool": "evaluate"}}})
			for _, q := range []string{"", "?is_published=false"} {
				got := c.s.call(t, "GET", "/v1/bots/"+botID+q, bootstrapToken, nil).must(t, 200)
				list := items(t, got.data, "workflow_info_list")
				if len(list) != 1 || str(list[0], "id") != weather || str(list[0], "name") != "weather_report" ||
					str(list[0], "description") != "tells the weather of a city" {
					t.Fatalf("workflow_info_list%s = %v", q, list)
				}
				if _, ok := list[0]["icon_url"]; !ok {
					t.Fatalf("icon_url missing: %v", list[0])
				}
				plugins := items(t, got.data, "plugin_info_list")
				if len(plugins) != 1 || str(plugins[0], "plugin_id") != calc || str(plugins[0], "name") != "Calculator" || str(plugins[0], "description") == "" {
					t.Fatalf("plugin_info_list%s = %v", q, plugins)
				}
				if apis := items(t, plugins[0], "api_info_list"); len(apis) != 1 || str(apis[0], "name") != "evaluate" || str(apis[0], "description") == "" {
					t.Fatalf("api_info_list%s = %v", q, apis)
				}
			}
		})
	}
}

// embeddings drives POST /v1/embeddings over a platform embedding model on
// the fake model server: floats, base64, and the fields a caller must fix.
func embeddings(t *testing.T, c *chatSetup) {
	t.Helper()
	s := c.s
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "embed", "kind": "embedding",
		"provider": "openai", "base_url": c.llm.BaseURL(), "api_key": "k", "model": "fake-embed-dim8"}).must(t, 201)
	got := s.call(t, "POST", "/v1/embeddings", bootstrapToken, map[string]any{"model": "embed", "input": []string{"red apple", "green pear"}})
	data, _ := got.raw["data"].([]any)
	if got.status != 200 || got.raw["object"] != "list" || len(data) != 2 || got.raw["model"] != "embed" {
		t.Fatalf("embeddings: %d %v", got.status, got.raw)
	}
	for i, d := range data {
		e := d.(map[string]any)
		if v, _ := e["embedding"].([]any); e["index"] != float64(i) || e["object"] != "embedding" || len(v) != 8 {
			t.Fatalf("embedding %d = %v", i, e)
		}
	}
	b64 := s.call(t, "POST", "/v1/embeddings", bootstrapToken, map[string]any{"model": "embed", "input": "red apple", "encoding_format": "base64"})
	if raw, err := base64.StdEncoding.DecodeString(str(b64.raw["data"].([]any)[0].(map[string]any), "embedding")); b64.status != 200 || err != nil || len(raw) != 32 {
		t.Fatalf("base64: %d %v", b64.status, b64.raw)
	}
	for _, bad := range []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"model": "fake", "input": "x"}, "model"},
		{map[string]any{"model": "embed", "input": []string{}}, "input"},
		{map[string]any{"model": "embed", "input": "x", "encoding_format": "int8"}, "encoding_format"},
		{map[string]any{"model": "embed", "input": "x", "dimensions": 16}, "dimensions"},
		{map[string]any{"model": "embed", "input": "x", "dimensions": 0}, "dimensions"},
		{map[string]any{"model": "embed", "input": strings.Repeat("word ", 10000)}, "input"}, // past the model's context: its 400, not a 500
	} {
		if e := oaError(t, s.call(t, "POST", "/v1/embeddings", bootstrapToken, bad.body), 400); e["param"] != bad.param {
			t.Fatalf("%v: %v; want param %s", bad.body, e, bad.param)
		}
	}
	if got := s.call(t, "POST", "/v1/embeddings", bootstrapToken, map[string]any{"model": "embed", "input": "x", "dimensions": 8}); got.status != 200 {
		t.Fatalf("dimensions the model gives: %d %v", got.status, got.raw)
	}
	c.llm.FailEmbeddings(1, fakellm.EmbedFault{Status: 401})
	if e := oaError(t, s.call(t, "POST", "/v1/embeddings", bootstrapToken, map[string]any{"model": "embed", "input": "x"}), 503); !strings.Contains(str(e, "message"), "unavailable") {
		t.Fatalf("a failing provider: %v", e)
	}
}
