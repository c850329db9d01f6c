package texttool

import (
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/plugins/internal/plugintest"
)

func TestManifest(t *testing.T) {
	plugintest.CheckManifest(t, Manifest(), New().Ops())
}

func TestOperations(t *testing.T) {
	big := strings.Repeat("a", maxText+1)
	plugintest.Run(t, New().Ops(), []plugintest.Case{
		{Name: "count", Op: "count", Args: map[string]any{"text": "Héllo  wörld\nsecond line\n"}, Want: `{"bytes":27,"characters":25,"lines":2,"words":4}`},
		{Name: "count empty", Op: "count", Args: map[string]any{"text": ""}, Want: `{"bytes":0,"characters":0,"lines":0,"words":0}`},
		{Name: "count without text", Op: "count", ErrField: "text"},
		{Name: "count too much text", Op: "count", Args: map[string]any{"text": big}, ErrField: "text", ErrText: "limit"},
		{Name: "upper", Op: "change_case", Args: map[string]any{"text": "straße ok", "to": "upper"}, Want: "STRASSE OK"},
		{Name: "lower", Op: "change_case", Args: map[string]any{"text": "ÀB C", "to": "LOWER"}, Want: "àb c"},
		{Name: "title", Op: "change_case", Args: map[string]any{"text": "the quick brown fox", "to": "title"}, Want: "The Quick Brown Fox"},
		{Name: "unknown case", Op: "change_case", Args: map[string]any{"text": "x", "to": "snake"}, ErrField: "to"},
		{Name: "replace all", Op: "replace", Args: map[string]any{"text": "a-b-c", "find": "-", "replacement": "+"}, Want: "a+b+c"},
		{Name: "replace first", Op: "replace", Args: map[string]any{"text": "a-b-c", "find": "-", "replacement": "+", "limit": 1.0}, Want: "a+b-c"},
		{Name: "delete", Op: "replace", Args: map[string]any{"text": "a-b-c", "find": "-"}, Want: "abc"},
		{Name: "replace with regex groups", Op: "replace", Args: map[string]any{"text": "2024-05-01", "find": `(\d+)-(\d+)-(\d+)`, "replacement": "$3/$2/$1", "regex": true}, Want: "01/05/2024"},
		{Name: "replace with named group", Op: "replace", Args: map[string]any{"text": "id=42", "find": `id=(?P<n>\d+)`, "replacement": "#${n}", "regex": "true"}, Want: "#42"},
		{Name: "replace empty find", Op: "replace", Args: map[string]any{"text": "abc", "find": ""}, ErrField: "find"},
		{Name: "replace bad regex", Op: "replace", Args: map[string]any{"text": "abc", "find": "(", "regex": true}, ErrField: "find", ErrText: "missing closing )"},
		{Name: "replace that would blow up", Op: "replace", Args: map[string]any{"text": strings.Repeat("a", 2000), "find": "a", "replacement": strings.Repeat("b", 1000)}, ErrField: "replacement"},
		{Name: "regex replace that would blow up", Op: "replace", Args: map[string]any{"text": strings.Repeat("a", 2000), "find": "a", "replacement": strings.Repeat("b", 1000), "regex": true}, ErrField: "replacement"},
		{Name: "split on comma", Op: "split", Args: map[string]any{"text": "a, b,,c ", "separator": ","}, Want: `["a","b","c"]`},
		{Name: "split untrimmed", Op: "split", Args: map[string]any{"text": "a, b,,c", "separator": ",", "trim": false}, Want: `["a"," b","","c"]`},
		{Name: "split words", Op: "split", Args: map[string]any{"text": " one  two\tthree\n"}, Want: `["one","two","three"]`},
		{Name: "split words with limit", Op: "split", Args: map[string]any{"text": "one two three four", "limit": 2.0}, Want: `["one","two three four"]`},
		{Name: "split with limit", Op: "split", Args: map[string]any{"text": "k=v=w", "separator": "=", "limit": 2.0}, Want: `["k","v=w"]`},
		{Name: "split keeps html", Op: "split", Args: map[string]any{"text": "<a>|&", "separator": "|"}, Want: `["<a>","&"]`},
		{Name: "split bad limit", Op: "split", Args: map[string]any{"text": "a", "limit": -1.0}, ErrField: "limit"},
		{Name: "match emails", Op: "regex_match", Args: map[string]any{"text": "mail bob@x.org or ann@y.io", "pattern": `(?P<user>\w+)@([\w.]+)`}, Want: `{"count":2,"matched":true,"matches":[{"match":"bob@x.org","start":5,"end":14,"groups":["bob","x.org"],"named":{"user":"bob"}},{"match":"ann@y.io","start":18,"end":26,"groups":["ann","y.io"],"named":{"user":"ann"}}]}`},
		{Name: "match limited", Op: "regex_match", Args: map[string]any{"text": "1 2 3 4", "pattern": `\d`, "limit": 2.0}, Contains: []string{`"count":2`}},
		{Name: "no match", Op: "regex_match", Args: map[string]any{"text": "abc", "pattern": `\d+`}, Want: `{"count":0,"matched":false,"matches":[]}`},
		{Name: "optional group unmatched", Op: "regex_match", Args: map[string]any{"text": "ab", "pattern": `a(x)?b`}, Contains: []string{`"groups":[""]`}},
		{Name: "pathological pattern runs in linear time", Op: "regex_match", Args: map[string]any{"text": strings.Repeat("a", 100000) + "!", "pattern": `(a+)+$`}, Want: `{"count":0,"matched":false,"matches":[]}`},
		{Name: "back-reference refused", Op: "regex_match", Args: map[string]any{"text": "aa", "pattern": `(a)\1`}, ErrField: "pattern", ErrText: "RE2"},
		{Name: "pattern too long", Op: "regex_match", Args: map[string]any{"text": "a", "pattern": strings.Repeat("a", 1001)}, ErrField: "pattern"},
		{Name: "huge repetition refused", Op: "regex_match", Args: map[string]any{"text": "a", "pattern": `((a{1000}){1000}){1000}`}, ErrField: "pattern"},
		{Name: "limit out of range", Op: "regex_match", Args: map[string]any{"text": "a", "pattern": "a", "limit": 5000.0}, ErrField: "limit"},
	})
}
