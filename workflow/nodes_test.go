package workflow

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompareOps(t *testing.T) {
	cases := []struct {
		op, compat string
		l, r       any
		want       bool
		err        string
	}{
		{op: "eq", l: int64(3), r: 3.0, want: true},
		{op: "eq", l: "a", r: "a", want: true},
		{op: "eq", l: []any{"a"}, r: []any{"a"}, want: true},
		{op: "ne", l: nil, r: "", want: true},
		{op: "gt", l: 3.5, r: int64(3), want: true},
		{op: "gte", l: int64(3), r: int64(3), want: true},
		{op: "lt", l: int64(-1), r: 0.5, want: true},
		{op: "lte", l: int64(4), r: int64(3), want: false},
		{op: "gt", l: "9", r: int64(3), err: "needs two numbers"},
		{op: "contains", l: "hello", r: "ell", want: true},
		{op: "contains", l: []any{int64(1), "b"}, r: 1.0, want: true},
		{op: "contains", l: map[string]any{"k": 1}, r: "k", want: true},
		{op: "contains", l: nil, r: "x", want: false},
		{op: "contains", l: "x", r: int64(1), err: "a text contains only text"},
		{op: "not_contains", l: "hello", r: "z", want: true},
		{op: "starts_with", l: "hello", r: "he", want: true},
		{op: "ends_with", l: "hello", r: "lo", want: true},
		{op: "matches", l: "ab12", r: `^[a-z]+\d+$`, want: true},
		{op: "matches", l: "x", r: "(", err: "pattern"},
		{op: "empty", l: []any{}, want: true},
		{op: "empty", l: int64(0), want: false},
		{op: "not_empty", l: map[string]any{"a": 1}, want: true},
		{op: "true", l: true, want: true},
		{op: "false", l: nil, want: false},
		{op: "gt", l: nil, r: int64(1), want: false},
		{op: "gte", l: nil, r: nil, want: true},
		{op: "lt", l: nil, r: int64(-5), want: true},
		{op: "lte", l: int64(1), r: nil, want: false},
		{op: "len_gt", l: "日本語", r: int64(2), want: true},
		{op: "len_gte", l: []any{1, 2}, r: int64(3), want: false},
		{op: "len_lt", l: map[string]any{"a": 1}, r: 2.0, want: true},
		{op: "len_lte", l: nil, r: int64(0), want: true},
		{op: "len_gt", l: int64(5), r: int64(1), err: "a length needs a text"},
		{op: "len_gt", l: "abc", r: "2", err: "compares with a number"},
		{op: "empty", compat: CompatCoze, l: int64(0), want: true},
		{op: "empty", compat: CompatCoze, l: "None", want: true},
		{op: "empty", compat: CompatCoze, l: false, want: true},
		{op: "not_empty", compat: CompatCoze, l: 0.5, want: true},
		{op: "false", compat: CompatCoze, l: nil, want: true},
		{op: "not_contains", compat: CompatCoze, l: nil, r: "x", want: false},
		{op: "not_contains", compat: CompatCoze, l: []any{"a"}, r: "x", want: true},
		{op: "eq", compat: CompatCoze, l: "a", r: "a", want: true},
	}
	for _, tc := range cases {
		op, ok := lookupOp(tc.op, tc.compat)
		if !ok {
			t.Fatalf("no op %s", tc.op)
		}
		got, err := op.eval(tc.l, tc.r)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v %s %v: error %v, want %q", tc.l, tc.op, tc.r, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%v %s %v = %v, %v; want %v", tc.l, tc.op, tc.r, got, err, tc.want)
		}
	}
}

func TestConform(t *testing.T) {
	cases := []struct {
		s       Schema
		v       any
		lenient bool
		want    any
		err     string
	}{
		{s: S(TypeInteger), v: 3.0, want: int64(3)},
		{s: S(TypeInteger), v: 3.5, err: "want integer, got number 3.5"},
		{s: S(TypeInteger), v: "4", err: `want integer, got string "4"`},
		{s: S(TypeInteger), v: " 4", lenient: true, want: int64(4)},
		{s: S(TypeNumber), v: int64(2), want: int64(2)},
		{s: S(TypeBoolean), v: "true", lenient: true, want: true},
		{s: S(TypeFile), v: "https://x/y.png", want: "https://x/y.png"},
		{s: ArrayOf(S(TypeInteger)), v: []any{1.0, int64(2)}, want: []any{int64(1), int64(2)}},
		{s: ArrayOf(S(TypeString)), v: []any{"a", int64(2)}, err: "[1]: want string, got integer 2"},
		{s: Schema{Type: TypeObject, Properties: []Param{P("n", TypeInteger)}}, v: map[string]any{"n": "x"}, err: "n: want integer"},
		{s: S(TypeObject), v: "x", err: "want object, got string"},
		{s: S(TypeString), v: nil, want: nil},
	}
	for _, tc := range cases {
		got, err := conform(tc.s, tc.v, tc.lenient)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("conform(%s, %v) error = %v, want %q", tc.s, tc.v, err, tc.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tc.want) {
			t.Errorf("conform(%s, %v) = %v, %v; want %v", tc.s, tc.v, got, err, tc.want)
		}
	}
}

func TestTemplates(t *testing.T) {
	vals := map[string]any{"a": "x", "o": map[string]any{"k": []any{int64(1), "two"}}, "n": nil}
	cases := map[string]string{
		"plain":                     "plain",
		"{{a}}-{{ a }}":             "x-x",
		"{{o.k.1}} {{o.k}}":         `two [1,"two"]`,
		"{{n}}|{{missing}}|{{o.z}}": "||",
		"{{ unclosed":               "{{ unclosed",
	}
	for src, want := range cases {
		tm, err := parseTemplate(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got := tm.render(vals); got != want {
			t.Errorf("render(%q) = %q, want %q", src, got, want)
		}
	}
	if _, err := parseTemplate("{{a b}}"); err == nil {
		t.Error("{{a b}} parsed")
	}
	if _, err := checkTemplate("{{q}}", map[string]Input{"p": Literal(1)}); err == nil || !strings.Contains(err.Error(), `add an input "q"`) {
		t.Errorf("checkTemplate = %v", err)
	}
}

func TestIntentClassify(t *testing.T) {
	r := &intentRunner{cfg: intentConfig{Intents: []intentEntry{{Name: "refund"}, {Name: "查询物流", Port: "branch_1"}}},
		ports: []string{"refund", "branch_1"}}
	cases := map[string]classification{
		"refund": {id: 1}, " Refund. ": {id: 1}, `{"intent": "branch_1"}`: {id: 2},
		`{"classificationId": 2, "reason": "asks where the parcel is"}`:         {id: 2, reason: "asks where the parcel is"},
		"```json\n{\"classificationId\": 1.0, \"reason\": \"money back\"}\n```": {id: 1, reason: "money back"},
		`{"classificationId": 0, "reason": "unclear"}`:                          {reason: "unclear"},
		`{"classificationId": 7}`:                                               {}, "2": {id: 2}, "This is about 查询物流, clearly": {id: 2}, "no idea": {}, "": {},
	}
	for reply, want := range cases {
		if got := r.classify(reply); got != want {
			t.Errorf("classify(%q) = %+v, want %+v", reply, got, want)
		}
	}
}

func TestTextRunners(t *testing.T) {
	split := splitRunner([]string{",", " "})
	out, err := split(context.Background(), nil, map[string]any{"text": "a, b,,c d"})
	if err != nil || !cmp.Equal(out["output"], []any{"a", "b", "c", "d"}) {
		t.Errorf("split = %v, %v", out, err)
	}
	concat := concatRunner("/")
	out, _ = concat(context.Background(), nil, map[string]any{"items": []any{"a", int64(1), nil, true}})
	if out["output"] != "a/1//true" {
		t.Errorf("concat = %v", out)
	}
}

func TestHTTPRequestBuilding(t *testing.T) {
	def, err := Parse([]byte(`{"nodes": [{"id": "start", "type": "start"},
		{"id": "h", "type": "http", "config": {"method": "post", "url": "{{base}}/items/{{id}}", "query": {"q": "{{q}}"},
		 "headers": {"X-Token": "{{tok}}"}, "body_type": "form", "form": {"name": "{{q}}"}},
		 "inputs": {"base": {"value": "https://api.example.com/v1"}, "id": {"value": "a b"}, "q": {"value": "x&y"}, "tok": {"value": "t"}}},
		{"id": "end", "type": "end"}], "edges": [{"from": "start", "to": "h"}, {"from": "h", "to": "end"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{}).check(context.Background(), def, CompileOptions{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	p := g.byID["h"].spec.runner.(*httpPlan)
	req, err := p.request(context.Background(), nil, map[string]any{"base": "https://api.example.com/v1", "id": "a b", "q": "x&y", "tok": "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got := req.URL.String(); got != "https://api.example.com/v1/items/a%20b?q=x%26y" {
		t.Errorf("URL = %s", got)
	}
	if req.Method != "POST" || req.Header.Get("X-Token") != "t" || req.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("request = %s %v", req.Method, req.Header)
	}
	if _, err := p.request(context.Background(), nil, map[string]any{"base": "file:///etc"}); err == nil {
		t.Error("a file: URL was accepted")
	}
}

// Header and query names holding placeholders are rendered too: Coze's
// custom auth reads its key from an input.
func TestHTTPTemplatedNames(t *testing.T) {
	def, err := Parse([]byte(`{"nodes": [{"id": "start", "type": "start"},
		{"id": "h", "type": "http", "config": {"url": "https://api.example.com/a", "query": {"{{k}}": "{{v}}", "plain": "1"},
		 "headers": {"X-{{k}}": "{{v}}"}},
		 "inputs": {"k": {"value": "api key"}, "v": {"value": "s&cret"}}},
		{"id": "end", "type": "end"}], "edges": [{"from": "start", "to": "h"}, {"from": "h", "to": "end"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{}).check(context.Background(), def, CompileOptions{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	p := g.byID["h"].spec.runner.(*httpPlan)
	req, err := p.request(context.Background(), nil, map[string]any{"k": "api key", "v": "s&cret"})
	if err != nil {
		t.Fatal(err)
	}
	if got := req.URL.Query(); got.Get("api key") != "s&cret" || got.Get("plain") != "1" || len(got) != 2 {
		t.Errorf("query = %v", got)
	}
	if got := req.Header.Get("X-api key"); got != "s&cret" {
		t.Errorf("headers = %v", req.Header)
	}
}

func TestCatalogDescribesEveryType(t *testing.T) {
	for _, info := range NewCatalog().Types() {
		if info.Title == "" || info.Description == "" || info.Category == "" {
			t.Errorf("%s: incomplete description %+v", info.Type, info)
		}
		if info.ConfigSchema["type"] != "object" {
			t.Errorf("%s: config schema %v is not an object schema", info.Type, info.ConfigSchema)
		}
	}
	props := NewCatalog().kinds["llm"].describe().ConfigSchema["properties"].(map[string]any)
	if _, ok := props["model_id"]; !ok {
		t.Errorf("llm config schema lacks model_id: %v", props)
	}
}
