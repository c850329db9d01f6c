package webchat

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// timeClaims are the claims that hold a time: a JSON number of seconds
// since 1970 (RFC 7519's NumericDate).
var timeClaims = []string{"exp", "nbf", "iat"}

// checkTimeClaims refuses a token whose time claims are not JSON numbers:
// the JWT library reads "exp":"1700000000" as a time, and a string that is
// no number as a malformed token; both are a site's bug to name plainly.
// A payload that cannot be read is left to the JWT parser's error.
func checkTimeClaims(raw string) error {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return nil
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(payload, &fields) != nil {
		return nil
	}
	for _, name := range timeClaims {
		v, ok := fields[name]
		if !ok {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(string(v)))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) != nil {
			return nil
		}
		if _, ok = x.(json.Number); !ok {
			return errs.Unauthenticated("the token's %s must be a number of seconds since 1970 (a JSON number such as 1767225600), got %s", name, excerpt(string(v)))
		}
	}
	return nil
}

// excerpt shortens a claim's text for an error message.
func excerpt(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
