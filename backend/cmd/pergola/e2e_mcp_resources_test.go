package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpResources: the bots and workflows are resources describing their
// tools; the templates name them and a conversation's messages, which
// its user reads and a token of another workspace cannot.
func mcpResources(t *testing.T, c *chatSetup, cl *mcpClient, ids map[string]string) {
	t.Helper()
	ctx := context.Background()
	list, err := cl.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	want := []string{"pergola://bots/" + ids["bot"], "pergola://workflows/" + ids["pick"], "pergola://workflows/" + ids["weather"]}
	slices.Sort(want)
	if !slices.Equal(uris, want) {
		t.Fatalf("resources = %v, want %v", uris, want)
	}
	var weather map[string]any
	readJSON(t, cl, "pergola://workflows/"+ids["weather"], &weather)
	schema, _ := weather["input_schema"].(map[string]any)
	if weather["tool"] != "wf_weather" || weather["description"] != "Tells the weather of a city." || schema["properties"] == nil {
		t.Fatalf("the weather resource = %v", weather)
	}
	templates, err := cl.session.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 3 || !strings.Contains(templates.ResourceTemplates[2].URITemplate, "/messages") {
		t.Fatalf("templates: %v %v", templates, err)
	}
	answer := cl.call(t, "chat_shop_helper", map[string]any{"message": "remember me"}, "")
	uri := "pergola://conversations/" + str(structured(t, answer), "conversation_id") + "/messages"
	var conv struct {
		Messages []struct{ Role, Content string }
	}
	readJSON(t, cl, uri, &conv)
	if len(conv.Messages) != 2 || conv.Messages[0].Content != "remember me" || conv.Messages[1].Content != "echo: remember me" {
		t.Fatalf("the conversation's messages = %+v", conv.Messages)
	}
	for _, bad := range []string{"pergola://workflows/" + ids["draft"], "pergola://conversations/123/messages", "pergola://bots/x"} {
		if _, err := cl.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: bad}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("reading %s: %v", bad, err)
		}
	}
	ws := str(c.s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Elsewhere"}).must(t, 201).data, "id")
	other := str(c.s.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "elsewhere", "workspace_ids": []string{ws}}).must(t, 201).data, "token")
	outsider, err := c.s.connectMCP(t, other, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{uri, "pergola://bots/" + ids["bot"]} {
		if _, err := outsider.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("a token of another workspace reading %s: %v", u, err)
		}
	}
}

func readJSON(t *testing.T, cl *mcpClient, uri string, into any) {
	t.Helper()
	res, err := cl.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read %s: %+v", uri, res.Contents)
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), into); err != nil {
		t.Fatalf("read %s: %v in %s", uri, err, res.Contents[0].Text)
	}
}

// mcpPrompts: a bot's published prompt is an MCP prompt named as its tool.
func mcpPrompts(t *testing.T, cl *mcpClient) {
	t.Helper()
	ctx := context.Background()
	list, err := cl.session.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) != 1 || list.Prompts[0].Name != "chat_shop_helper" {
		t.Fatalf("prompts: %+v %v", list, err)
	}
	got, err := cl.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "chat_shop_helper"})
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != "You are the shop's helper." {
		t.Fatalf("prompts/get: %+v %v", got, err)
	}
	if _, err := cl.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "wf_weather"}); err == nil || !strings.Contains(err.Error(), "unknown prompt") {
		t.Fatalf("a workflow's prompt: %v", err)
	}
}
