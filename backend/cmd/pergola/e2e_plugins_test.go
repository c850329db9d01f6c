package main

import (
	"strings"
	"testing"
)

// TestPluginCalledByABotThroughTheCozeAPI is the "done when": a
// plugin registered from an OpenAPI document with API-key auth, published
// and bound to a bot, is called by the bot in a chat through /v3/chat; the
// local API sees the key and the parameters, the answer reaches the user,
// and the admin view shows the calls. On SQLite and on MariaDB.
func TestPluginCalledByABotThroughTheCozeAPI(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			api := newWeatherAPI(t)
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			s := c.s
			created := s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{
				"workspace_id": c.ws, "openapi": weatherDoc, "server_url": api.URL + "/v1",
				"auth": map[string]any{"type": "api_key", "location": "header", "name": "X-Api-Key", "key": weatherKey},
			}).must(t, 201).data
			pluginID := str(created, "id")
			if str(created, "name") != "Weather" || len(items(t, created, "tools")) != 2 {
				t.Fatalf("created = %v", created)
			}
			s.call(t, "POST", "/api/plugins/"+pluginID+"/publish", bootstrapToken, nil).must(t, 201)
			botID := c.bot(t, map[string]any{"name": "Forecaster", "model": map[string]any{"model_id": "fake"},
				"plugins": []map[string]any{
					{"plugin_id": pluginID, "tool": "getWeather"},
					{"plugin_id": pluginID, "tool": "addAlert"},
					{"plugin_id": calculatorID(t, s, c.ws), "tool": "evaluate"},
				}})
			version := s.call(t, "GET", "/api/bots/"+botID+"/versions/1", bootstrapToken, nil).must(t, 200).data
			bound := items(t, version["config"].(map[string]any), "plugins")
			if str(bound[0], "version") != "1" || str(bound[2], "version") != "1" {
				t.Fatalf("the published bot did not pin the plugin versions: %v", bound)
			}

			events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call getWeather {"city":"Paris","units":"imperial"}`)})
			want := `tool said: {"city":"Paris","temp":21,"units":"imperial"}`
			if got := answerOf(t, events); got != want {
				t.Fatalf("answer = %q, want %q (events %v)", got, want, names(events))
			}
			// The model was given each tool's JSON Schema, $refs resolved.
			var alert string
			for _, tl := range c.llm.Requests()[0].Tools {
				if tl.Function.Name == "addAlert" {
					alert = string(tl.Function.Parameters)
				}
			}
			if !strings.Contains(alert, `"above":{"type":["number","null"]}`) || !strings.Contains(alert, `"required":["above","city"]`) {
				t.Fatalf("addAlert parameters given to the model = %s", alert)
			}
			calls := api.seen()
			if len(calls) != 1 || calls[0].key != weatherKey || calls[0].method != "GET" || calls[0].path != "/v1/weather/Paris" || calls[0].query != "units=imperial" {
				t.Fatalf("the API saw %+v", calls)
			}
			funcCall := ""
			for _, e := range events {
				if e.name == "conversation.message.completed" && str(e.obj(t), "type") == "function_call" {
					funcCall = str(e.obj(t), "content")
				}
			}
			if !strings.Contains(funcCall, "getWeather") {
				t.Errorf("no function_call message for the tool: %q", funcCall)
			}

			// Arguments that do not match: the model reads what is wrong.
			events = s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call getWeather {"units":"kelvin"}`)})
			got := answerOf(t, events)
			if !strings.Contains(got, `tool said: error: invalid arguments: missing required "city"; "units" must be one of "metric", "imperial", got "kelvin"`) {
				t.Fatalf("answer = %q", got)
			}
			// A built-in of the catalog, bound the same way.
			events = s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call evaluate {"expression":"6*7"}`)})
			if got := answerOf(t, events); !strings.Contains(got, "tool said: ") || !strings.Contains(got, "42") {
				t.Fatalf("calculator answer = %q", got)
			}

			admin := s.call(t, "GET", "/api/admin/plugins/"+pluginID, bootstrapToken, nil).must(t, 200).data
			stats := items(t, admin, "stats")
			if len(stats) != 1 || str(stats[0], "tool") != "getWeather" || stats[0]["calls"] != float64(2) || stats[0]["errors"] != float64(1) ||
				!strings.Contains(str(stats[0], "last_error"), "invalid arguments") {
				t.Fatalf("admin stats = %v", stats)
			}
		})
	}
}

// calculatorID finds the built-in calculator in the catalog a workspace
// sees.
func calculatorID(t *testing.T, s *testServer, ws string) string {
	t.Helper()
	list := s.call(t, "GET", "/api/plugins?scope=catalog&workspace_id="+ws, bootstrapToken, nil).must(t, 200).data
	for _, p := range items(t, list, "items") {
		if str(p, "name") == "Calculator" && str(p, "scope") == "catalog" && str(p, "published_version") == "1" {
			return str(p, "id")
		}
	}
	t.Fatalf("no calculator in the catalog: %v", list)
	return ""
}

// TestPluginEgressRefusedInAChat runs a plugin that points at 127.0.0.1
// on a server without PERGOLA_EGRESS_ALLOW: the call is refused and the
// model reads why, the chat completes, and the API never sees a request.
func TestPluginEgressRefusedInAChat(t *testing.T) {
	api := newWeatherAPI(t)
	c := newChatSetup(t, backends()[0])
	s := c.s
	pluginID := str(s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{
		"workspace_id": c.ws, "openapi": weatherDoc, "server_url": api.URL + "/v1",
		"auth": map[string]any{"type": "api_key", "name": "X-Api-Key", "key": weatherKey},
	}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/plugins/"+pluginID+"/publish", bootstrapToken, nil).must(t, 201)
	botID := c.bot(t, map[string]any{"name": "Inside", "model": map[string]any{"model_id": "fake"},
		"plugins": []map[string]any{{"plugin_id": pluginID, "tool": "getWeather"}}})
	events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
		"additional_messages": userMessage(`#call getWeather {"city":"Paris"}`)})
	got := answerOf(t, events)
	want := "tool said: error: GET " + api.URL + "/v1/weather/Paris failed: egress refused: 127.0.0.1 is a loopback address (allow it with PERGOLA_EGRESS_ALLOW)"
	if got != want {
		t.Fatalf("answer = %q\nwant     %q", got, want)
	}
	if n := names(events); n[len(n)-2] != "conversation.chat.completed" {
		t.Fatalf("events = %v", n)
	}
	if calls := api.seen(); len(calls) != 0 {
		t.Fatalf("the API saw %v", calls)
	}
	run := s.call(t, "POST", "/api/plugins/"+pluginID+"/tools/getWeather/debug", bootstrapToken, map[string]any{"args": map[string]any{"city": "Oslo"}}).must(t, 200).data
	if run["ok"] != false || run["response"] != nil || !strings.Contains(str(run, "error"), "egress refused: 127.0.0.1") {
		t.Fatalf("debug run = %v", run)
	}
}
