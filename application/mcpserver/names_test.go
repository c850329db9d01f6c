package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	wf "github.com/pergola-ai/pergola/workflow"
)

func TestSlug(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"words", "Shop Helper", "shop_helper"},
		{"punctuation runs", "  Hello,  World!! ", "hello_world"},
		{"underscores kept once", "pick__size", "pick_size"},
		{"nothing usable", "日本語", ""},
		{"cut and trimmed", "a234567890b234567890c234567890d234567890e234567_z", "a234567890b234567890c234567890d234567890e234567"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := slug(c.in); got != c.want {
				t.Fatalf("slug(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestNamedCollisions: the oldest keeps a shared name, the others and
// nameless ones are named by id, whatever the listing order.
func TestNamedCollisions(t *testing.T) {
	tools := []Tool{{Name: "Shop", id: 30}, {Name: "shop!", id: 10}, {Name: "???", id: 20}, {Name: "Other", id: 40}}
	var got []string
	for _, tl := range named(tools, botPrefix) {
		got = append(got, tl.Name)
	}
	if diff := cmp.Diff([]string{"chat_shop", "chat_20", "chat_30", "chat_other"}, got); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
}

func TestObjectSchema(t *testing.T) {
	params := []wf.Param{
		{Name: "city", Schema: wf.S(wf.TypeString), Required: true, Description: "the city"},
		{Name: "days", Schema: wf.S(wf.TypeInteger)},
		{Name: "tags", Schema: wf.ArrayOf(wf.S(wf.TypeString))},
		{Name: "photo", Schema: wf.S(wf.TypeFile)},
	}
	want := map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"city"},
		"properties": map[string]any{
			"city":  map[string]any{"type": "string", "description": "the city"},
			"days":  map[string]any{"type": "integer"},
			"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"photo": map[string]any{"type": "string", "description": "the URL of a file"},
		},
	}
	if diff := cmp.Diff(want, objectSchema(params)); diff != "" {
		t.Fatalf("schema (-want +got):\n%s", diff)
	}
}

func TestCheckArgs(t *testing.T) {
	schema := objectSchema([]wf.Param{{Name: "city", Schema: wf.S(wf.TypeString), Required: true}})
	cases := []struct {
		name string
		args map[string]any
		want string // "" for accepted
	}{
		{"fine", map[string]any{"city": "Oslo"}, ""},
		{"missing", map[string]any{}, `argument "city": is required`},
		{"null", map[string]any{"city": nil}, `argument "city": is required`},
		{"unknown", map[string]any{"city": "Oslo", "days": 2}, `argument "days": this tool takes no such argument; it takes city`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			if r := checkArgs(schema, c.args); r != nil {
				got = r.Text
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestQuestionOf(t *testing.T) {
	closed := questionOf(&wf.Interrupt{Kind: wf.InterruptQuestion, Question: "Pick", Options: []string{"S", "M"}})
	answer := closed.Schema["properties"].(map[string]any)["answer"].(map[string]any)
	if closed.Message != "Pick" || !cmp.Equal(answer["enum"], []string{"S", "M"}) {
		t.Fatalf("option question = %+v", closed)
	}
	form := &wf.Interrupt{Kind: wf.InterruptInput, Fields: []wf.Param{{Name: "n", Schema: wf.S(wf.TypeInteger), Required: true},
		{Name: "tags", Schema: wf.ArrayOf(wf.S(wf.TypeString))}}}
	data, err := answerData(form, map[string]any{"n": float64(3), "tags": `["a","b"]`, "stray": 1})
	if err != nil || data != `{"n":3,"tags":["a","b"]}` {
		t.Fatalf("form answer = %s, %v", data, err)
	}
}
