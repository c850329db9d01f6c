package channel

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// maxSettingLen bounds one setting value, in characters.
const maxSettingLen = 2000

// maxOrigins bounds allowed_origins.
const maxOrigins = 50

// Check validates the settings of a new channel, as decoded from JSON, and
// returns them normalized with defaults filled in. Errors are
// errs.FieldError naming "settings.<name>".
func (s Spec) Check(in map[string]any) (Settings, error) {
	return s.Merge(nil, in)
}

// Merge applies a change to stored settings and validates the result. A
// setting absent from change keeps its value; null removes it; a secret
// sent back masked (starting with MaskPrefix) keeps the stored secret.
func (s Spec) Merge(stored Settings, change map[string]any) (Settings, error) {
	out := Settings{}
	for k, v := range stored {
		out[k] = v
	}
	for _, k := range sortedKeys(change) {
		f, ok := s.Field(k)
		if !ok {
			return nil, errs.Invalid("settings."+k, "is not a setting of %s channels; use %s", s.Kind, strings.Join(s.Names(), ", "))
		}
		if err := s.apply(out, f, change[k]); err != nil {
			return nil, err
		}
	}
	return out, s.complete(out)
}

// apply sets one changed value into out.
func (s Spec) apply(out Settings, f Field, v any) error {
	if v == nil {
		delete(out, f.Name)
		return nil
	}
	if str, ok := v.(string); ok && f.Secret && strings.HasPrefix(str, MaskPrefix) {
		if _, had := out[f.Name]; had {
			return nil
		}
		return errs.Invalid("settings."+f.Name, "is a masked value; send the secret itself")
	}
	val, err := f.normalize(v)
	if err != nil {
		return err
	}
	if str, ok := val.(string); ok && str == "" {
		delete(out, f.Name)
		return nil
	}
	out[f.Name] = val
	return nil
}

// complete fills defaults and reports the first missing required setting.
func (s Spec) complete(out Settings) error {
	for _, f := range s.Fields {
		if _, ok := out[f.Name]; ok {
			continue
		}
		if f.Default != "" {
			out[f.Name] = f.Default
		} else if f.Required {
			return errs.Invalid("settings."+f.Name, "is required for %s channels", s.Kind)
		}
	}
	return nil
}

// normalize checks one value against the field and returns it trimmed.
func (f Field) normalize(v any) (any, error) {
	field := "settings." + f.Name
	if f.Type == Origins {
		return normalizeOrigins(field, v)
	}
	str, ok := scalarText(v)
	if !ok {
		return nil, errs.Invalid(field, "must be a string")
	}
	str = strings.TrimSpace(str)
	if str == "" {
		return "", nil
	}
	if why := f.checkText(str); why != "" {
		return nil, errs.Invalid(field, "%s", why)
	}
	return str, nil
}

// checkText returns what is wrong with a non-empty string value, or "".
func (f Field) checkText(v string) string {
	n := utf8.RuneCountInString(v)
	switch {
	case n > maxSettingLen:
		return fmt.Sprintf("must be at most %d characters", maxSettingLen)
	case n < f.MinLen:
		return fmt.Sprintf("must be at least %d characters", f.MinLen)
	case f.Type == URL && !isHTTPURL(v):
		return fmt.Sprintf("must be an absolute http(s) URL such as https://example.com/path, got %q", v)
	case f.Check != nil:
		return f.Check(v)
	}
	return ""
}

func isHTTPURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// normalizeOrigins checks a list of origins ("https://shop.example.com",
// "http://localhost:3000") or ["*"].
func normalizeOrigins(field string, v any) (any, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, errs.Invalid(field, `must be a list of origins such as ["https://shop.example.com"], or ["*"]`)
	}
	if len(items) > maxOrigins {
		return nil, errs.Invalid(field, "must list at most %d origins", maxOrigins)
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		str, _ := it.(string)
		str = strings.TrimRight(strings.TrimSpace(str), "/")
		if str != "*" && !isOrigin(str) {
			return nil, errs.Invalid(fmt.Sprintf("%s[%d]", field, i), "must be an origin: scheme://host[:port] with no path, such as https://shop.example.com, or *; got %q", str)
		}
		out = append(out, str)
	}
	return out, nil
}

func isOrigin(v string) bool {
	u, err := url.Parse(v)
	return err == nil && isHTTPURL(v) && u.Path == "" && u.RawQuery == "" && u.Fragment == ""
}

// scalarText is a setting's value as text: a string as it is, a JSON
// boolean or whole number ("allow_anonymous": false,
// "messages_per_minute": 30) as it would be written in quotes.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10), true
		}
	}
	return "", false
}
