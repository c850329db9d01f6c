package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSetup is a server with the fake model, a published bot and three
// published workflows (one asks a question), and an MCP session of the
// Go SDK's client on the bootstrap token.
func mcpSetup(t *testing.T, b backend) (*chatSetup, map[string]string) {
	t.Helper()
	c := newChatSetup(t, b)
	ids := map[string]string{
		"bot":     c.bot(t, map[string]any{"name": "Shop Helper", "description": "Answers questions about the shop.", "prompt": "You are the shop's helper.", "model": map[string]any{"model_id": "fake"}}),
		"weather": c.workflow(t, "Weather", "Tells the weather of a city.", weatherWorkflow, true),
		"pick":    c.workflow(t, "Pick_Size", "Orders an item in a size the user picks.", pickSizeFlow, true),
		"draft":   c.workflow(t, "never_published", "", weatherWorkflow, false),
	}
	return c, ids
}

// TestMCPServerTools drives /mcp with the MCP Go SDK's client: the tools
// list, a bot's chat continued by conversation_id, a workflow run with
// progress, wrong arguments, and a question node answered through
// elicitation or, for a client without it, a tool error saying how to
// resume.
func TestMCPServerTools(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c, ids := mcpSetup(t, b)
			cl, err := c.s.connectMCP(t, bootstrapToken, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			tools := cl.tools(t)
			var names []string
			for n := range tools {
				names = append(names, n)
			}
			slices.Sort(names)
			if want := []string{"chat_shop_helper", "wf_pick_size", "wf_weather"}; !slices.Equal(names, want) {
				t.Fatalf("tools = %v, want %v", names, want)
			}
			checkToolShapes(t, tools)
			mcpChat(t, c, cl)
			mcpWorkflow(t, cl)
			mcpWrongArguments(t, cl)
			mcpQuestion(t, c, ids["pick"])
			mcpResources(t, c, cl, ids)
			mcpPrompts(t, cl)
		})
	}
}

func checkToolShapes(t *testing.T, tools map[string]*mcp.Tool) {
	t.Helper()
	if d := tools["chat_shop_helper"].Description; d != "Answers questions about the shop." {
		t.Fatalf("bot tool description = %q", d)
	}
	in, _ := tools["wf_weather"].InputSchema.(map[string]any)
	props, _ := in["properties"].(map[string]any)
	city, _ := props["city"].(map[string]any)
	if city["type"] != "string" || city["description"] != "the city" || !slices.Contains(in["required"].([]any), any("city")) {
		t.Fatalf("wf_weather input schema = %v", in)
	}
	chatIn, _ := tools["chat_shop_helper"].InputSchema.(map[string]any)
	if req, _ := chatIn["required"].([]any); !slices.Equal(req, []any{"message"}) {
		t.Fatalf("chat tool input schema = %v", chatIn)
	}
}

// mcpChat: a bot answers, and answers again inside the same conversation.
func mcpChat(t *testing.T, c *chatSetup, cl *mcpClient) {
	t.Helper()
	first := cl.call(t, "chat_shop_helper", map[string]any{"message": "hello shop"}, "chat-1")
	if first.IsError || textOf(first) != "echo: hello shop" {
		t.Fatalf("first answer: error %v, %q", first.IsError, textOf(first))
	}
	out := structured(t, first)
	conv := str(out, "conversation_id")
	if conv == "" || str(out, "answer") != "echo: hello shop" {
		t.Fatalf("structured content = %v", out)
	}
	if p := cl.progressOf("chat-1", 1); len(p) == 0 || !strings.Contains(p[0], "started") {
		t.Fatalf("chat progress = %v", p)
	}
	second := cl.call(t, "chat_shop_helper", map[string]any{"message": "and again", "conversation_id": conv}, "")
	if textOf(second) != "echo: and again" || str(structured(t, second), "conversation_id") != conv {
		t.Fatalf("second answer %q in %v", textOf(second), second.StructuredContent)
	}
	// The model saw the first round as history: the conversation went on.
	reqs := c.llm.Requests()
	last := reqs[len(reqs)-1]
	var seen []string
	for _, m := range last.Messages {
		seen = append(seen, m.Content)
	}
	if !slices.Contains(seen, "hello shop") || !slices.Contains(seen, "echo: hello shop") {
		t.Fatalf("the second turn's model request lacks the first round: %q", seen)
	}
	// A new conversation does not carry it.
	cl.call(t, "chat_shop_helper", map[string]any{"message": "fresh"}, "")
	reqs = c.llm.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Content == "hello shop" {
			t.Fatal("a call without conversation_id continued the earlier conversation")
		}
	}
}

// mcpWorkflow: a workflow's end node output comes back as structured
// content and JSON text, with a progress step per node.
func mcpWorkflow(t *testing.T, cl *mcpClient) {
	t.Helper()
	res := cl.call(t, "wf_weather", map[string]any{"city": "Paris"}, "wf-1")
	out := structured(t, res)
	if res.IsError || out["city"] != "Paris" || out["temp"] != float64(21) || str(out, "execute_id") == "" {
		t.Fatalf("wf_weather: error %v, %q, structured %v", res.IsError, textOf(res), out)
	}
	if !strings.Contains(textOf(res), `"city":"Paris"`) {
		t.Fatalf("wf_weather text = %q", textOf(res))
	}
	p := cl.progressOf("wf-1", 2)
	if len(p) < 2 || !strings.Contains(strings.Join(p, "|"), "node end (end) success") {
		t.Fatalf("workflow progress = %v", p)
	}
}

// mcpWrongArguments: bad input is a tool error naming the argument; an
// unknown tool is a protocol error.
func mcpWrongArguments(t *testing.T, cl *mcpClient) {
	t.Helper()
	mustFailWith(t, cl.call(t, "wf_weather", map[string]any{}, ""), `argument "city"`, "required")
	mustFailWith(t, cl.call(t, "wf_weather", map[string]any{"city": "Rome", "days": 3}, ""), `argument "days"`, "no such argument")
	mustFailWith(t, cl.call(t, "wf_weather", map[string]any{"city": map[string]any{"name": "Rome"}}, ""), `argument "city"`)
	mustFailWith(t, cl.call(t, "chat_shop_helper", map[string]any{"message": ""}, ""), `argument "message"`)
	mustFailWith(t, cl.call(t, "chat_shop_helper", map[string]any{"message": "hi", "conversation_id": "abc"}, ""), `argument "conversation_id"`)
	mustFailWith(t, cl.call(t, "chat_shop_helper", map[string]any{"message": "hi", "conversation_id": "123456789"}, ""), "not found")
	for _, name := range []string{"wf_never_published", "chat_nobody"} {
		if _, err := cl.try(name, map[string]any{}, ""); err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Fatalf("calling %s: %v, want unknown tool", name, err)
		}
	}
}

// mcpQuestion: a question node is asked through elicitation and the run
// goes on with the answer; a client that cannot answer gets a tool error
// naming the question and how to resume, and resuming that way works.
func mcpQuestion(t *testing.T, c *chatSetup, workflowID string) {
	t.Helper()
	var asked *mcp.ElicitParams
	answering, err := c.s.connectMCP(t, bootstrapToken, func(r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = r.Params
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "M"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := answering.call(t, "wf_pick_size", map[string]any{"item": "shirt"}, "")
	out := structured(t, res)
	if res.IsError || out["item"] != "shirt" || out["size"] != "M" {
		t.Fatalf("answered run: error %v %q %v", res.IsError, textOf(res), out)
	}
	if asked == nil || !strings.Contains(asked.Message, "Pick a size for your shirt") {
		t.Fatalf("elicitation = %+v", asked)
	}
	declining, _ := c.s.connectMCP(t, bootstrapToken, func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	})
	mustFailWith(t, declining.call(t, "wf_pick_size", map[string]any{"item": "hat"}, ""), "declined", "stream_resume")

	plain, _ := c.s.connectMCP(t, bootstrapToken, nil)
	res = plain.call(t, "wf_pick_size", map[string]any{"item": "scarf"}, "")
	mustFailWith(t, res, "Pick a size for your scarf", "cannot answer questions", "/v1/workflow/stream_resume")
	out = structured(t, res)
	resumed := c.s.postRaw(t, "/v1/workflow/stream_resume", bootstrapToken, "", map[string]any{"workflow_id": workflowID,
		"event_id": str(out, "event_id"), "resume_data": "L", "interrupt_type": 2})
	if !strings.Contains(resumed, `\"size\":\"L\"`) || !strings.Contains(resumed, `\"item\":\"scarf\"`) {
		t.Fatalf("resuming the run as the error says answered %s", resumed)
	}
}

// TestMCPServerAuthAndTenancy: /mcp refuses requests without a valid
// token with 401 and a WWW-Authenticate challenge; a token sees and calls
// only the tools of the workspaces it reaches.
func TestMCPServerAuthAndTenancy(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c, _ := mcpSetup(t, b)
			for _, token := range []string{"", "pat_not_a_real_token"} {
				r := c.s.call(t, "POST", "/mcp", token, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
				if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("token %q: status %d, WWW-Authenticate %q", token, r.status, r.header.Get("WWW-Authenticate"))
				}
				if _, err := c.s.connectMCP(t, token, nil); err == nil {
					t.Fatalf("token %q: the client connected", token)
				}
			}
			// Workspace B with its own bot; a token restricted to B.
			wsB := str(c.s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Team B"}).must(t, 201).data, "id")
			botB := c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": wsB, "name": "B Bot",
				"model": map[string]any{"model_id": "fake"}}).must(t, 201)
			c.s.call(t, "POST", "/api/bots/"+str(botB.data, "id")+"/publish", bootstrapToken, nil).must(t, 201)
			onlyB := str(c.s.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "only B", "workspace_ids": []string{wsB}}).must(t, 201).data, "token")

			clB, err := c.s.connectMCP(t, onlyB, nil)
			if err != nil {
				t.Fatal(err)
			}
			if names := keys(clB.tools(t)); !slices.Equal(names, []string{"chat_b_bot"}) {
				t.Fatalf("the B token lists %v", names)
			}
			for _, name := range []string{"chat_shop_helper", "wf_weather"} {
				if _, err := clB.try(name, map[string]any{"message": "hi", "city": "Oslo"}, ""); err == nil || !strings.Contains(err.Error(), "unknown tool") {
					t.Fatalf("the B token calling %s: %v", name, err)
				}
			}
			if res := clB.call(t, "chat_b_bot", map[string]any{"message": "hi B"}, ""); textOf(res) != "echo: hi B" {
				t.Fatalf("B's own bot said %q", textOf(res))
			}
			// The unrestricted token sees both workspaces' tools, published
			// since its session began.
			all, _ := c.s.connectMCP(t, bootstrapToken, nil)
			if names := keys(all.tools(t)); !slices.Contains(names, "chat_b_bot") || !slices.Contains(names, "chat_shop_helper") {
				t.Fatalf("the all token lists %v", names)
			}
			mcpOtherUser(t, c)
			mcpSessionBinding(t, c, clB)
			mcpResourceMetadata(t, c)
		})
	}
}

// mcpOtherUser: a user of no shared workspace sees no tool.
func mcpOtherUser(t *testing.T, c *chatSetup) {
	t.Helper()
	c.s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "eve@example.com", "name": "Eve", "password": "eve-password-1"}).must(t, 201)
	session := str(c.s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "eve-password-1"}).must(t, 200).data, "token")
	eve := str(c.s.call(t, "POST", "/api/tokens", session, map[string]any{"name": "mcp"}).must(t, 201).data, "token")
	// Her console session, as a cookie, does not authenticate /mcp.
	if got := c.s.postRaw(t, "/mcp", "", session, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}); !strings.Contains(got, "401") {
		t.Fatalf("a session cookie on /mcp: %s", got)
	}
	cl, err := c.s.connectMCP(t, eve, nil)
	if err != nil {
		t.Fatal(err)
	}
	if names := keys(cl.tools(t)); len(names) != 0 {
		t.Fatalf("Eve lists %v", names)
	}
}

// mcpSessionBinding: a session id is refused with another token.
func mcpSessionBinding(t *testing.T, c *chatSetup, owner *mcpClient) {
	t.Helper()
	req, _ := http.NewRequest("GET", c.s.base+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", owner.session.ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another token on the session: status %d, want 403", resp.StatusCode)
	}
}

func keys(m map[string]*mcp.Tool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// mcpResourceMetadata: the 401's challenge names the protected resource
// metadata (RFC 9728), which a client without a token can read: the /mcp
// URL as the resource, bearer tokens in the header, and how to create
// one, with no authorization server claimed.
func mcpResourceMetadata(t *testing.T, c *chatSetup) {
	t.Helper()
	r := c.s.call(t, "POST", "/mcp", "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	want := `resource_metadata="` + c.s.base + `/.well-known/oauth-protected-resource/mcp"`
	if !strings.Contains(r.header.Get("WWW-Authenticate"), want) {
		t.Fatalf("WWW-Authenticate %q lacks %s", r.header.Get("WWW-Authenticate"), want)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(c.s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		if md["resource"] != c.s.base+"/mcp" || !strings.Contains(fmt.Sprint(md["bearer_methods_supported"]), "header") ||
			!strings.Contains(str(md, "pergola_token_instructions"), "POST /api/tokens") || md["authorization_servers"] != nil {
			t.Fatalf("GET %s = %v", path, md)
		}
	}
}
