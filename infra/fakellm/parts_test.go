package fakellm

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

func postJSON(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// TestImageParts: image parts are checked as OpenAI checks them, and a
// test sees the decoded image the model received.
func TestImageParts(t *testing.T) {
	s := Start(t, WithTextOnlyModels("text-only"))
	msg := func(model, part string) string {
		return `{"model":"` + model + `","messages":[{"role":"user","content":[{"type":"text","text":"what is it?"},` + part + `]}]}`
	}
	png := `{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}`
	if code, body := postJSON(t, s.BaseURL(), msg("vision", png)); code != 200 {
		t.Fatalf("a valid data URL image: %d %s", code, body)
	}
	reqs := s.Requests()
	got := reqs[len(reqs)-1].Messages[0]
	if got.Content != "what is it?" || len(got.Images) != 1 || got.Images[0].MimeType != "image/png" || string(got.Images[0].Data) != "\x89PNG\r\n\x1a\n" {
		t.Fatalf("recorded message %+v", got)
	}
	bad := map[string]string{
		"text-only model":   "",
		"ftp scheme":        `{"type":"image_url","image_url":{"url":"ftp://x/y.png"}}`,
		"not an image type": `{"type":"image_url","image_url":{"url":"data:text/plain;base64,aGk="}}`,
		"broken base64":     `{"type":"image_url","image_url":{"url":"data:image/png;base64,@@@"}}`,
		"no url":            `{"type":"image_url","image_url":{}}`,
		"text without text": `{"type":"text"}`,
		"unknown type":      `{"type":"video","text":"x"}`,
	}
	for name, part := range bad {
		model := "vision"
		if part == "" {
			model, part = "text-only", png
		}
		if code, body := postJSON(t, s.BaseURL(), msg(model, part)); code != 400 || !strings.Contains(body, "invalid_request_error") {
			t.Errorf("%s: %d %s, want 400", name, code, body)
		}
	}
	http := `{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}`
	if code, body := postJSON(t, s.BaseURL(), msg("vision", http)); code != 200 {
		t.Fatalf("an https image: %d %s", code, body)
	}
}

// TestDefaultReplyNamesImages: the echo says which images reached the
// model, for clients that cannot read the recorded requests.
func TestDefaultReplyNamesImages(t *testing.T) {
	s := Start(t)
	body := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"look"},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},` +
		`{"type":"image_url","image_url":{"url":"https://example.com/a.jpg"}}]}]}`
	code, got := postJSON(t, s.BaseURL(), body)
	if code != 200 || !strings.Contains(got, `"echo: look [image: image/png, 8 bytes] [image: https://example.com/a.jpg]"`) {
		t.Fatalf("%d %s", code, got)
	}
}
