package openapi

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

func petstore(t *testing.T) *Result {
	t.Helper()
	doc, err := os.ReadFile("testdata/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(doc, "")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return res
}

func toolOf(t *testing.T, res *Result, name string) plugin.Tool {
	t.Helper()
	for _, tl := range res.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q among %v", name, names(res))
	return plugin.Tool{}
}

func names(res *Result) []string {
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

func TestParseMakesOneToolPerOperation(t *testing.T) {
	res := petstore(t)
	want := []string{"listPets", "createPet", "getPet", "delete_pets_petId"}
	if diff := cmp.Diff(want, names(res)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "POST /upload (uploadPhoto): skipped: request body type multipart/form-data") {
		t.Errorf("warnings = %q", res.Warnings)
	}
	if res.Title != "Petstore" || res.Description != "Pets to adopt." {
		t.Errorf("info = %q %q", res.Title, res.Description)
	}
}

func TestParseGathersParametersIntoOneSchema(t *testing.T) {
	list := toolOf(t, petstore(t), "listPets")
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"limit":   map[string]any{"type": "integer", "exclusiveMaximum": 100.0, "default": 20.0},
			"status":  map[string]any{"type": "string", "enum": []any{"available", "pending", "sold"}, "default": "available"},
			"tags":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"X-Trace": map[string]any{"type": "string", "description": "a trace id"},
		},
		"required": []any{"limit"},
	}
	if diff := cmp.Diff(want, list.Schema); diff != "" {
		t.Errorf("listPets schema (-want +got):\n%s", diff)
	}
	if list.ServerURL != "https://eu.pets.example/v1" || list.Method != "GET" || list.Path != "/pets" || list.Description != "List pets" {
		t.Errorf("listPets = %+v", list)
	}
	wantParams := []plugin.Param{
		{Name: "limit", In: plugin.InQuery, Required: true, Explode: true},
		{Name: "status", In: plugin.InQuery, Explode: true},
		{Name: "tags", In: plugin.InQuery, Explode: true},
		{Name: "X-Trace", In: plugin.InHeader},
	}
	if diff := cmp.Diff(wantParams, list.Params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
}

func TestParseFlattensAnObjectBodyAndResolvesRefs(t *testing.T) {
	create := toolOf(t, petstore(t), "createPet")
	props := create.Schema["properties"].(map[string]any)
	if _, ok := props["id"]; ok {
		t.Error("the read-only id is offered as an argument")
	}
	if diff := cmp.Diff(map[string]any{"type": "string", "enum": []any{"cat", "dog"}}, props["kind"]); diff != "" {
		t.Errorf("kind (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"type": []any{"string", "null"}}, props["owner"]); diff != "" {
		t.Errorf("nullable owner (-want +got):\n%s", diff)
	}
	tree := props["parent"].(map[string]any)["properties"].(map[string]any)["children"].(map[string]any)["items"].(map[string]any)
	if !strings.Contains(tree["description"].(string), "recursive") {
		t.Errorf("recursive schema not cut: %v", tree)
	}
	if diff := cmp.Diff([]any{"name"}, create.Schema["required"]); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	want := &plugin.Body{MediaType: "application/json", Required: true, Fields: []string{"kind", "name", "owner", "parent"}}
	if diff := cmp.Diff(want, create.Body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestParseUsesPathItemParametersAndNamesUnnamedOperations(t *testing.T) {
	res := petstore(t)
	del := toolOf(t, res, "delete_pets_petId")
	if del.OperationID != "delete_pets_petId" || del.Description != "Remove a pet" {
		t.Errorf("delete = %+v", del)
	}
	get := toolOf(t, res, "getPet")
	want := map[string]any{"type": "integer", "format": "int64", "minimum": 1.0}
	if diff := cmp.Diff(want, get.Schema["properties"].(map[string]any)["petId"]); diff != "" {
		t.Errorf("petId (-want +got):\n%s", diff)
	}
}

func TestParseReads31JSON(t *testing.T) {
	doc := `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
	  "paths":{"/search":{"post":{"operationId":"search.items",
	    "requestBody":{"content":{"application/json":{"schema":{"type":"array","items":{"type":["string","null"]}}}}},
	    "responses":{"200":{"description":"ok"}}}}}}`
	res, err := Parse([]byte(doc), "https://api.example/")
	if err != nil {
		t.Fatal(err)
	}
	tl := res.Tools[0]
	if tl.Name != "search_items" || tl.OperationID != "search.items" || tl.ServerURL != "https://api.example" {
		t.Fatalf("tool = %+v", tl)
	}
	want := map[string]any{"type": "object", "properties": map[string]any{
		"body": map[string]any{"type": "array", "items": map[string]any{"type": []any{"string", "null"}}},
	}}
	if diff := cmp.Diff(want, tl.Schema); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
	if tl.Body.Property != "body" {
		t.Errorf("body = %+v", tl.Body)
	}
}

// TestParseRefusesBadDocuments is the bad-input list for documents: each
// is refused on the field openapi (or server_url) with a message that
// names what is wrong and where.
func TestParseRefusesBadDocuments(t *testing.T) {
	op := func(body string) string {
		return `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://x.io"}],"paths":` + body + `}`
	}
	many := make([]string, 0, plugin.MaxTools+1)
	for i := range plugin.MaxTools + 1 {
		many = append(many, `"/p`+strconv.Itoa(i)+`":{"get":{"responses":{}}}`)
	}
	cases := []struct {
		name, doc, server, want string
	}{
		{"empty", "  ", "", "openapi: is required"},
		{"not YAML", "openapi: [3.0", "", "neither valid JSON nor valid YAML"},
		{"a list", "[1, 2]", "", "must be an OpenAPI document"},
		{"swagger 2", `{"swagger":"2.0"}`, "", "Swagger 2.0 documents are not supported"},
		{"no version", `{"info":{}}`, "", `has no "openapi" version field`},
		{"version 2.5", `{"openapi":"2.5"}`, "", `version "2.5" is not supported`},
		{"huge", `{"openapi":"3.0.3","x":"` + strings.Repeat("a", plugin.MaxDocumentBytes) + `"}`, "", "the limit is 1048576 bytes"},
		{"no operations", op(`{}`), "", "has no operations"},
		{"too many operations", op("{" + strings.Join(many, ",") + "}"), "", "a plugin may have at most 100"},
		{"external ref", op(`{"/a":{"get":{"parameters":[{"$ref":"other.yaml#/p"}]}}}`), "", `GET /a: parameters[0]: $ref "other.yaml#/p": only references inside the document`},
		{"broken ref", op(`{"/a":{"get":{"operationId":"a","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Nope"}}}}}}}`), "",
			`GET /a (a): requestBody application/json schema: $ref "#/components/schemas/Nope": "components" does not exist`},
		{"optional path parameter", op(`{"/a/{id}":{"get":{"parameters":[{"name":"id","in":"path","schema":{"type":"string"}}]}}}`), "",
			"GET /a/{id}: parameters[0] (id): a path parameter must have required: true"},
		{"undeclared path parameter", op(`{"/a/{id}":{"get":{}}}`), "", "the path has {id} but no path parameter"},
		{"parameter without schema", op(`{"/a":{"get":{"parameters":[{"name":"q","in":"query"}]}}}`), "", "parameters[0] (q): has no schema"},
		{"parameter in body", op(`{"/a":{"get":{"parameters":[{"name":"q","in":"body","schema":{}}]}}}`), "", `in must be path, query, header or cookie, got "body"`},
		{"duplicate operationId", op(`{"/a":{"get":{"operationId":"x"}},"/b":{"get":{"operationId":"x"}}}`), "", `the tool name "x" is already taken by GET /a (x)`},
		{"relative server", `{"openapi":"3.0.3","servers":[{"url":"/v1"}],"paths":{"/a":{"get":{}}}}`, "", `servers[0].url "/v1" is not an absolute http(s) URL; give server_url`},
		{"no server", `{"openapi":"3.0.3","paths":{"/a":{"get":{}}}}`, "", "GET /a: has no server URL"},
		{"bad server_url", op(`{"/a":{"get":{}}}`), "ftp://x", `server_url: must be an absolute http(s) URL`},
		{"only unsupported bodies", op(`{"/a":{"post":{"requestBody":{"content":{"application/octet-stream":{}}}}}}`), "", "none of the operations can be used"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc), tc.server)
			if !errors.Is(err, errs.ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

func TestParseBoundsRefExpansion(t *testing.T) {
	// Each level refers to the next one twice: 2^20 nodes once expanded.
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","servers":[{"url":"https://x.io"}],"paths":{"/a":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/L0"}}}}}}},"components":{"schemas":{`)
	for i := range 20 {
		if i > 0 {
			b.WriteString(",")
		}
		next := `{"type":"string"}`
		if i < 19 {
			next = `{"$ref":"#/components/schemas/L` + string(rune('A'+i)) + `"}`
		}
		name := "L0"
		if i > 0 {
			name = "L" + string(rune('A'+i-1))
		}
		b.WriteString(`"` + name + `":{"type":"object","properties":{"a":` + next + `,"b":` + next + `}}`)
	}
	b.WriteString(`}}}`)
	_, err := Parse([]byte(b.String()), "")
	if err == nil || !strings.Contains(err.Error(), "too large once its $refs are expanded") {
		t.Fatalf("error = %v", err)
	}
}
