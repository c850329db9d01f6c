package httpx

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestCheckJSONText(t *testing.T) {
	cases := []struct {
		name, body, want string // want: "" for accepted, else part of the message
	}{
		{"plain", `{"name":"Ada"}`, ""},
		{"unicode", `{"name":"Zoë 😀"}`, ""},
		{"surrogate pair", `{"name":"\ud83d\ude00"}`, ""},
		{"escaped backslash before u", `{"name":"\\ud800"}`, ""},
		{"surrogate escape outside a string is the decoder's business", `{"a":1} \ud800`, ""},
		{"other escapes", `{"a":"\"\n\t\u00e9"}`, ""},
		{"invalid byte", "{\"name\":\"a\xffb\"}", "offset 10"},
		{"truncated sequence", "{\"name\":\"\xc3\"}", "not valid UTF-8"},
		{"encoded surrogate", "{\"name\":\"\xed\xa0\x80\"}", "not valid UTF-8"},
		{"lone high", `{"name":"a\ud800b"}`, "lone UTF-16 surrogate escape at byte 10"},
		{"lone high at the end", `{"name":"\uD800"}`, "lone UTF-16 surrogate"},
		{"high then non-low", `{"name":"\ud800\u0041"}`, "lone UTF-16 surrogate"},
		{"lone low", `{"name":"\udc00"}`, "lone UTF-16 surrogate"},
		{"two highs", `{"name":"\ud800\ud800\udc00"}`, "lone UTF-16 surrogate"},
		{"in a key", `{"\udfff":1}`, "lone UTF-16 surrogate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckJSONText([]byte(tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (!errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want ErrInvalid containing %q", err, tc.want)
			}
		})
	}
}
