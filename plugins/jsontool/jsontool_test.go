package jsontool

import (
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/plugins/internal/plugintest"
)

func TestManifest(t *testing.T) {
	plugintest.CheckManifest(t, Manifest(), New().Ops())
}

const doc = `{"data":{"items":[{"name":"a","price":1.50,"tags":["x"]},{"name":"b","price":12345678901234567890}],
"odd.key":{"with space":true},"empty":[],"html":"<b>&</b>"}}`

func q(name, path, want string) plugintest.Case {
	return plugintest.Case{Name: name, Op: "query", Args: map[string]any{"json": doc, "path": path}, Want: want}
}

func qerr(name, path, says string) plugintest.Case {
	return plugintest.Case{Name: name, Op: "query", Args: map[string]any{"json": doc, "path": path}, ErrField: "path", ErrText: says}
}

func TestQuery(t *testing.T) {
	plugintest.Run(t, New().Ops(), []plugintest.Case{
		q("string is plain text", "data.items[0].name", "a"),
		q("leading dollar", "$.data.items[1].name", "b"),
		q("number kept exactly", "data.items[1].price", "12345678901234567890"),
		q("number as written", "data.items[0].price", "1.50"),
		q("last element", "data.items[-1].name", "b"),
		q("array as JSON", "data.items[0].tags", `["x"]`),
		q("wildcard", "data.items[*].name", `["a","b"]`),
		q("dot wildcard", "data.items.*.price", `[1.50,12345678901234567890]`),
		q("wildcard skips misses", "data.items[*].tags[0]", `["x"]`),
		q("quoted key", `data["odd.key"]['with space']`, "true"),
		q("no HTML escaping", "data.html", "<b>&</b>"),
		q("whole document", "$", `{"data":{"empty":[],"html":"<b>&</b>","items":[{"name":"a","price":1.50,"tags":["x"]},{"name":"b","price":12345678901234567890}],"odd.key":{"with space":true}}}`),
		q("empty array", "data.empty", "[]"),
		qerr("missing key lists keys", "data.nope", `data has no key "nope"; its keys are empty, html, items, odd.key`),
		qerr("index out of range", "data.items[5]", "data.items has 2 elements; index 5 is out of range"),
		qerr("key on array", "data.items.name", "data.items is an array of 2 elements"),
		qerr("index on object", "data[0]", "data is an object, not an array"),
		qerr("into a scalar", "data.items[0].name.first", `data.items[0].name is a string of 1 characters`),
		qerr("bad index", "data.items[one]", "[one] is not an index"),
		qerr("unclosed bracket", "data.items[0", "missing ]"),
		qerr("unterminated quote", `data["odd`, "unterminated quoted key"),
		qerr("empty key", "data..items", "empty key"),
		{Name: "object instead of text", Op: "query", Args: map[string]any{"json": map[string]any{"a": []any{1.0, 2.0}}, "path": "a[1]"}, Want: "2"},
		{Name: "not JSON", Op: "query", Args: map[string]any{"json": `{"a":}`, "path": "a"}, ErrField: "json", ErrText: "line 1, column 6"},
		{Name: "missing json", Op: "query", Args: map[string]any{"path": "a"}, ErrField: "json"},
		{Name: "document too large", Op: "query", Args: map[string]any{"json": `"` + strings.Repeat("a", maxDocument) + `"`}, ErrField: "json", ErrText: "limit"},
	})
}

func TestFormatAndValidate(t *testing.T) {
	plugintest.Run(t, New().Ops(), []plugintest.Case{
		{Name: "pretty by default", Op: "format", Args: map[string]any{"json": `{"b":1,"a":[true,null]}`}, Want: "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null\n  ]\n}"},
		{Name: "compact", Op: "format", Args: map[string]any{"json": "{ \"b\" : 1,\n \"a\" : 2 }", "indent": 0.0}, Want: `{"b":1,"a":2}`},
		{Name: "sorted keys", Op: "format", Args: map[string]any{"json": `{"b":1,"a":{"d":0,"c":0}}`, "indent": 0.0, "sort_keys": true}, Want: `{"a":{"c":0,"d":0},"b":1}`},
		{Name: "four spaces", Op: "format", Args: map[string]any{"json": `[1]`, "indent": 4.0}, Want: "[\n    1\n]"},
		{Name: "format invalid", Op: "format", Args: map[string]any{"json": `[1,]`}, ErrField: "json"},
		{Name: "indent out of range", Op: "format", Args: map[string]any{"json": `[1]`, "indent": 20.0}, ErrField: "indent"},
		{Name: "valid object", Op: "validate", Args: map[string]any{"json": `{"a":1,"b":2}`}, Want: "valid: an object with 2 keys"},
		{Name: "valid number", Op: "validate", Args: map[string]any{"json": ` 42 `}, Want: "valid: the number 42"},
		{Name: "invalid with position", Op: "validate", Args: map[string]any{"json": "{\n  \"a\": 1,\n  \"b\": tru\n}"}, Want: "invalid: invalid character '\\n' in literal true (expecting 'e') at line 3, column 11"},
		{Name: "truncated", Op: "validate", Args: map[string]any{"json": `{"a": [1, 2`}, Want: "invalid: the text ends before the value is complete"},
		{Name: "empty", Op: "validate", Args: map[string]any{"json": "  "}, Want: "invalid: the text is empty"},
		{Name: "trailing data", Op: "validate", Args: map[string]any{"json": `{} {}`}, Contains: []string{"invalid: extra data after the value"}},
	})
}
