package plugin

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
)

func schemaOf(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const petSchema = `{"type":"object","required":["petId","limit"],"properties":{
  "petId":{"type":"integer","minimum":1},
  "limit":{"type":"integer","default":20,"maximum":100},
  "status":{"type":"string","enum":["available","sold"]},
  "tags":{"type":"array","items":{"type":"string"},"maxItems":2},
  "name":{"type":"string","minLength":2,"pattern":"^[a-z]+$"},
  "owner":{"type":["string","null"]},
  "flag":{"type":"boolean"},
  "meta":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"number","exclusiveMinimum":0}}}
}}`

func TestCheckArgsAcceptsAndConverts(t *testing.T) {
	args, err := DecodeArgs(`{"petId":"7","status":"sold","tags":["a"],"owner":null,"flag":"true","meta":{"a":0.5}}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckArgs(schemaOf(t, petSchema), args); err != nil {
		t.Fatalf("CheckArgs: %v", err)
	}
	want := map[string]any{"petId": json.Number("7"), "limit": 20.0, "status": "sold", "tags": []any{"a"},
		"owner": nil, "flag": true, "meta": map[string]any{"a": json.Number("0.5")}}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Errorf("args after the check (-want +got):\n%s", diff)
	}
}

func TestCheckArgsSaysWhatIsWrong(t *testing.T) {
	cases := []struct {
		name, args string
		want       []string
	}{
		{"missing and wrong type", `{"limit":"ten"}`, []string{`"limit" must be an integer, got "ten"`, `missing required "petId"`}},
		{"enum", `{"petId":1,"status":"gone"}`, []string{`"status" must be one of "available", "sold", got "gone"`}},
		{"bounds", `{"petId":0,"limit":101}`, []string{`"limit" must be at most 100, got 101`, `"petId" must be at least 1, got 0`}},
		{"string rules", `{"petId":1,"name":"A"}`, []string{`"name" must be at least 2 characters long`, `"name" must match the pattern ^[a-z]+$`}},
		{"array rules", `{"petId":1,"tags":["a",2,"c"]}`, []string{`"tags" must have at most 2 items`, `"tags[1]" must be a string, got 2`}},
		{"nested unknown", `{"petId":1,"meta":{"a":0,"b":1}}`, []string{`"meta.a" must be greater than 0, got 0`, `"meta.b" is not a known argument (known: a)`}},
		{"not an object", `[1]`, []string{"the arguments must be a JSON object"}},
		{"not JSON", `{"petId":`, []string{"the arguments are not valid JSON"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, err := DecodeArgs(tc.args)
			if err == nil {
				err = CheckArgs(schemaOf(t, petSchema), args)
			}
			var ae *ArgError
			if !errors.As(err, &ae) || !errors.Is(err, errs.ErrInvalid) {
				t.Fatalf("error = %v, want an ArgError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			if !strings.HasSuffix(err.Error(), "Fix the arguments and call the tool again.") {
				t.Errorf("%q does not tell the model what to do", err)
			}
		})
	}
}

func TestCheckArgsCombinators(t *testing.T) {
	s := schemaOf(t, `{"type":"object","properties":{"v":{"anyOf":[{"type":"integer"},{"type":"string","enum":["auto"]}]}}}`)
	for _, ok := range []string{`{"v":3}`, `{"v":"auto"}`} {
		args, _ := DecodeArgs(ok)
		if err := CheckArgs(s, args); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	args, _ := DecodeArgs(`{"v":"manual"}`)
	if err := CheckArgs(s, args); err == nil || !strings.Contains(err.Error(), `"v" does not match any of the allowed shapes`) {
		t.Errorf("error = %v", err)
	}
}
