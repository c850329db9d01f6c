package idl_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"

	"github.com/pergola-ai/pergola/idl"
)

// methods are the operation keys of an OpenAPI 3.0 path item.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func merged(t *testing.T) map[string]any {
	t.Helper()
	b, err := idl.Merged()
	if err != nil {
		t.Fatalf("Merged: %v", err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("Merged output is not YAML: %v", err)
	}
	return doc
}

type operation struct {
	method, path string
	op           map[string]any
}

func operations(t *testing.T, doc map[string]any) []operation {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	if !ok || len(paths) == 0 {
		t.Fatal("merged document has no paths")
	}
	var out []operation
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		item, ok := paths[p].(map[string]any)
		if !ok {
			t.Errorf("path %s: not an object", p)
			continue
		}
		for _, m := range methods {
			if op, ok := item[m].(map[string]any); ok {
				out = append(out, operation{method: strings.ToUpper(m), path: p, op: op})
			}
		}
	}
	return out
}

func TestDocumentsParse(t *testing.T) {
	docs, err := idl.Documents()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ops.yaml", "console.yaml", "admin.yaml", "coze.yaml"} {
		b, ok := docs[name]
		if !ok {
			t.Errorf("%s is not embedded", name)
			continue
		}
		var d struct {
			OpenAPI string         `yaml:"openapi"`
			Paths   map[string]any `yaml:"paths"`
		}
		if err := yaml.Unmarshal(b, &d); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d.OpenAPI != "3.0.3" {
			t.Errorf("%s: openapi is %q, want 3.0.3", name, d.OpenAPI)
		}
		if len(d.Paths) == 0 {
			t.Errorf("%s: no paths", name)
		}
	}
}

func TestMergedParses(t *testing.T) {
	doc := merged(t)
	if got := doc["openapi"]; got != "3.0.3" {
		t.Errorf("openapi = %v, want 3.0.3", got)
	}
	if len(operations(t, doc)) == 0 {
		t.Error("no operations")
	}
}

// TestMergedValidates loads the merged document with kin-openapi and runs
// its validation. kin-openapi v0.152.0 cannot be used: eino-ext's gemini
// model (v0.1.7) does not compile against it (Schema.Type became *Types),
// so this uses v0.118.0, the version the module graph already holds.
func TestMergedValidates(t *testing.T) {
	b, err := idl.Merged()
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(b)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
}

func TestOperationIDs(t *testing.T) {
	seen := map[string]string{}
	for _, o := range operations(t, merged(t)) {
		key := o.method + " " + o.path
		id, _ := o.op["operationId"].(string)
		if id == "" {
			t.Errorf("%s: no operationId", key)
			continue
		}
		if prev, dup := seen[id]; dup {
			t.Errorf("operationId %q is used by %s and %s", id, prev, key)
		}
		seen[id] = key
	}
}

// TestOperationsDocumented checks what makes the document usable as
// documentation: a summary, at least one success and, on authenticated
// operations, the 401 answer.
func TestOperationsDocumented(t *testing.T) {
	for _, o := range operations(t, merged(t)) {
		key := o.method + " " + o.path
		if s, _ := o.op["summary"].(string); s == "" {
			t.Errorf("%s: no summary", key)
		}
		responses, _ := o.op["responses"].(map[string]any)
		hasSuccess := false
		for code := range responses {
			if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 300 {
				hasSuccess = true
			}
		}
		if !hasSuccess {
			t.Errorf("%s: no 2xx response", key)
		}
		if sec, set := o.op["security"].([]any); set && len(sec) == 0 {
			continue // public
		}
		authed := strings.HasPrefix(o.path, "/api/") || strings.HasPrefix(o.path, "/v")
		if _, ok := responses["401"]; authed && !ok {
			t.Errorf("%s: authenticated but no 401 response", key)
		}
	}
}

func TestRefsResolve(t *testing.T) {
	doc := merged(t)
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch n := v.(type) {
		case map[string]any:
			if ref, ok := n["$ref"].(string); ok {
				if err := resolve(doc, ref); err != nil {
					t.Errorf("%s: $ref %q: %v", at, ref, err)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(n)) {
				walk(at+"/"+k, n[k])
			}
		case []any:
			for i, e := range n {
				walk(fmt.Sprintf("%s/%d", at, i), e)
			}
		}
	}
	walk("#", doc)
}

// resolve follows a local JSON pointer such as #/components/schemas/User.
func resolve(doc map[string]any, ref string) error {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return fmt.Errorf("only local references are allowed")
	}
	var cur any = doc
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("%q is not inside an object", tok)
		}
		if cur, ok = m[tok]; !ok {
			return fmt.Errorf("%q does not exist", tok)
		}
	}
	return nil
}
