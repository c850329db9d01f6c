package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestCatalog(t *testing.T) {
	now := func() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC) }
	catalog := Catalog(Deps{Now: now})
	var ids []string
	for _, b := range catalog {
		ids = append(ids, b.ID)
		if b.Name == "" || b.Description == "" || b.Invoke == nil {
			t.Errorf("%s: name, description and invoke must be set", b.ID)
		}
		doc, err := openapi3.NewLoader().LoadFromData(b.OpenAPI)
		if err != nil {
			t.Fatalf("%s: manifest: %v", b.ID, err)
		}
		if doc.Info.Title != b.Name {
			t.Errorf("%s: manifest title %q, catalog name %q", b.ID, doc.Info.Title, b.Name)
		}
		for path, item := range doc.Paths {
			for method, op := range item.Operations() {
				checkBodyOnly(t, b.ID, method+" "+path, op)
			}
		}
		_, err = b.Invoke(context.Background(), "no_such_operation", nil)
		var fe *errs.FieldError
		if !errors.As(err, &fe) || fe.Field != "operation" {
			t.Errorf("%s: unknown operation = %v, want an invalid operation", b.ID, err)
		}
	}
	if want := []string{"time", "calculator", "webfetch", "json", "text"}; !slices.Equal(ids, want) {
		t.Fatalf("catalog ids %v, want %v in that order", ids, want)
	}
}

// checkBodyOnly holds built-ins to one shape: no path, query or header
// parameters, and a JSON object body whose properties are the arguments.
func checkBodyOnly(t *testing.T, id, where string, op *openapi3.Operation) {
	t.Helper()
	if len(op.Parameters) > 0 {
		t.Errorf("%s %s: built-ins take their arguments in the body only", id, where)
	}
	if op.RequestBody == nil || op.RequestBody.Value.Content.Get("application/json") == nil {
		t.Errorf("%s %s: wants an application/json request body", id, where)
		return
	}
	if s := op.RequestBody.Value.Content.Get("application/json").Schema.Value; s.Type != "object" {
		t.Errorf("%s %s: body schema is %q, want object", id, where, s.Type)
	}
}

// TestArgumentsAsDecodedJSON calls each plugin the way the runtime does:
// arguments decoded from the model's JSON with numbers kept as
// json.Number.
func TestArgumentsAsDecodedJSON(t *testing.T) {
	catalog := Catalog(Deps{Now: func() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC) }})
	cases := []struct {
		plugin, op, args, want string
	}{
		{"time", "now", `{"timezone":"Europe/Berlin"}`, `"time":"2030-01-02T04:04:05+01:00"`},
		{"time", "add", `{"time":"2030-01-01","months":2}`, `"date":"2030-03-01"`},
		{"calculator", "evaluate", `{"expression":"6*7"}`, "42"},
		{"json", "query", `{"json":"{\"a\":[10,20]}","path":"a[1]"}`, "20"},
		{"json", "format", `{"json":"[1, 2]","indent":0}`, "[1,2]"},
		{"text", "split", `{"text":"a b c","limit":2}`, `["a","b c"]`},
		{"text", "regex_match", `{"text":"x1y22","pattern":"\\d+","limit":1}`, `"count":1`},
	}
	byID := map[string]Builtin{}
	for _, b := range catalog {
		byID[b.ID] = b
	}
	for _, tc := range cases {
		t.Run(tc.plugin+"/"+tc.op, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tc.args))
			dec.UseNumber()
			var args map[string]any
			if err := dec.Decode(&args); err != nil {
				t.Fatal(err)
			}
			got, err := byID[tc.plugin].Invoke(context.Background(), tc.op, args)
			if err != nil || !strings.Contains(got, tc.want) {
				t.Fatalf("%s %s = %q, %v; want it to contain %q", tc.plugin, tc.op, got, err, tc.want)
			}
		})
	}
}
