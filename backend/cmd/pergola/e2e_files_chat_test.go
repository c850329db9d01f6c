package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// filesChat is a server with two fake models: "vision" (vision capability)
// and "text" (none; the fake refuses image parts for it, as OpenAI does).
type filesChat struct {
	s   *testServer
	llm *fakellm.Server
	ws  string
}

func newFilesChat(t *testing.T, b backend) *filesChat {
	t.Helper()
	llm := fakellm.New(fakellm.WithTextOnlyModels("fake-text"))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	s := startServer(t, b.env(t))
	for id, vision := range map[string]bool{"vision": true, "text": false} {
		s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{
			"id": id, "provider": "openai", "base_url": url, "api_key": "k", "model": "fake-" + id,
			"capabilities": map[string]any{"vision": vision},
		}).must(t, 201)
	}
	ws := s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200)
	return &filesChat{s: s, llm: llm, ws: str(items(t, ws.data, "workspaces")[0], "id")}
}

func (c *filesChat) bot(t *testing.T, model string) string {
	t.Helper()
	created := c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": model + " bot",
		"model": map[string]any{"model_id": model}}).must(t, 201)
	id := str(created.data, "id")
	c.s.call(t, "POST", "/api/bots/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return id
}

// ask streams one /v3/chat turn and returns the last message the model got.
func (c *filesChat) ask(t *testing.T, botID string, msgs []map[string]any) fakellm.Message {
	t.Helper()
	events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
		"additional_messages": msgs})
	if got := names(events); got[len(got)-1] != "done" || strings.Contains(strings.Join(got, ","), "failed") {
		t.Fatalf("stream events %v; last %v", got, events[len(events)-2])
	}
	reqs := c.llm.Requests()
	m := reqs[len(reqs)-1].Messages
	return m[len(m)-1]
}

// TestFilesInChat: an uploaded image named in an object_string message
// reaches a vision model as an image part holding the uploaded bytes, and
// a model without vision as text naming the file; another workspace's file
// is refused before anything runs.
func TestFilesInChat(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newFilesChat(t, b)
			img := pngBytes(2000)
			fileID := str(c.s.upload(t, bootstrapToken, "cat.png", img, "").must(t, 200).data, "id")
			question := objectString(t, map[string]any{"type": "text", "text": "Describe this picture"},
				map[string]any{"type": "image", "file_id": fileID})

			got := c.ask(t, c.bot(t, "vision"), question)
			if got.Role != "user" || got.Content != "Describe this picture" || len(got.Images) != 1 ||
				got.Images[0].MimeType != "image/png" || !bytes.Equal(got.Images[0].Data, img) {
				t.Fatalf("the vision model got %q with %d images (%+v)", got.Content, len(got.Images), got.Images)
			}

			got = c.ask(t, c.bot(t, "text"), question)
			if len(got.Images) != 0 || !strings.Contains(got.Content, "Describe this picture") || !strings.Contains(got.Content, "cat.png") {
				t.Fatalf("the text model got %q with %d images", got.Content, len(got.Images))
			}

			url := "https://example.com/dog.jpg"
			got = c.ask(t, c.bot(t, "vision"), objectString(t, map[string]any{"type": "image", "file_url": url}))
			if len(got.Images) != 1 || got.Images[0].URL != url {
				t.Fatalf("a file_url image reached the model as %q %+v", got.Content, got.Images)
			}
			testChatRefusesOtherFiles(t, c)
		})
	}
}

func testChatRefusesOtherFiles(t *testing.T, c *filesChat) {
	bob := newUser(t, c.s, "bob@files-chat.test")
	bobFile := str(c.s.upload(t, bob, "b.png", pngBytes(100), "").must(t, 200).data, "id")
	before := len(c.llm.Requests())
	botID := c.bot(t, "vision")
	for _, id := range []string{bobFile, "987654321", "not-a-number"} {
		c.s.call(t, "POST", "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
			"additional_messages": objectString(t, map[string]any{"type": "image", "file_id": id})}).
			fails(t, 400, 4000, "file_id \""+id+"\" is not a file of this bot's workspace")
	}
	if n := len(c.llm.Requests()); n != before {
		t.Fatalf("the model was called %d times for refused chats", n-before)
	}
}
