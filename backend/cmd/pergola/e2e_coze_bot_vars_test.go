package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// userVar reads the bot (user) variable name as typ.
func userVar(name, typ string) cz {
	return cz{"type": typ, "value": cz{"type": "ref", "content": cz{"source": "global_variable_user", "path": []string{name}}}}
}

// botVarsCanvas returns bot variables: city (string), n (integer), tags
// (a list) at its end, and flag (boolean) through an aggregator, which
// outputs the Start's fallback when flag reads null.
func botVarsCanvas(t *testing.T) json.RawMessage {
	t.Helper()
	agg := czNode("300", "32", "Flag", cz{"mergeGroups": []cz{{"name": "Flag", "variables": []cz{
		userVar("flag", "boolean"), czRef("100001", "fallback", "boolean")}}}}, czOut("Flag", "boolean"))
	tags := userVar("tags", "list")
	tags["schema"] = cz{"type": "string"}
	end := czEnd(czParam("city", userVar("city", "string")), czParam("n", userVar("n", "integer")),
		czParam("tags", tags), czParam("flag", czRef("300", "Flag", "boolean")))
	return czCanvas(t, []cz{czStart(czOut("fallback", "boolean")), agg, end}, czEdge("100001", "300"), czEdge("300", "900001"))
}

// TestCozeBotVariablesWithoutABot: in an imported (compat coze) workflow
// a bot variable read by a run without a bot is null, so a node that
// fills zero values (the End) shows its type's zero value and an
// aggregator passes it over, as Coze's workflow handler tests expect;
// with a bot, an unset variable read as a boolean or an integer is false
// or 0, a list null, as Coze's variable store answers. Pergola's own
// workflows still fail the run without a bot.
func TestCozeBotVariablesWithoutABot(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			id := c.importPublished(t, "vars", botVarsCanvas(t), nil)
			params := cz{"fallback": true}
			want := map[string]any{"city": "", "n": float64(0), "tags": nil, "flag": true}
			if got := c.runBoth(t, cz{"workflow_id": id, "parameters": params}); !cmp.Equal(got, want) {
				t.Errorf("without a bot (-want +got):\n%s", cmp.Diff(want, got))
			}
			vars := []cz{{"keyword": "city", "default": "Paris"}, {"keyword": "flag"}, {"keyword": "n"}, {"keyword": "tags"}}
			bot := c.bot(t, cz{"name": "Keeper", "model": cz{"model_id": "fake"}, "variables": vars})
			want = map[string]any{"city": "Paris", "n": float64(0), "tags": nil, "flag": false}
			if got := c.runBoth(t, cz{"workflow_id": id, "bot_id": bot, "parameters": params}); !cmp.Equal(got, want) {
				t.Errorf("with a bot, unset variables (-want +got):\n%s", cmp.Diff(want, got))
			}
			own := c.workflow(t, "own_vars", "", `{"nodes": [{"id": "start", "type": "start"},
			  {"id": "end", "type": "end", "inputs": {"city": {"variable": "city"}}}], "edges": [{"from": "start", "to": "end"}]}`, true)
			run := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": own})
			if run.status != 400 || !strings.Contains(run.msg, "reading bot variables needs a bot") {
				t.Fatalf("Pergola's own workflow without a bot: %d %q", run.status, run.msg)
			}
			failed := false
			for _, e := range c.s.workflowStream(t, cz{"workflow_id": own}) {
				failed = failed || (e.name == "Error" && strings.Contains(fmt.Sprint(e.data), "reading bot variables needs a bot"))
			}
			if !failed {
				t.Fatal("Pergola's own workflow without a bot: the stream did not fail")
			}
		})
	}
}
