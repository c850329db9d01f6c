package channel

import "strings"

// FieldType says what a setting holds and how it is checked.
type FieldType int

// The types of setting.
const (
	Text    FieldType = iota // a non-empty string
	URL                      // an absolute http(s) URL
	Origins                  // a list of web origins, or "*"
)

// Field describes one setting of a kind.
type Field struct {
	Name     string
	Type     FieldType
	Required bool
	// Secret settings are sealed at rest and masked in every answer.
	Secret  bool
	Default string // for an absent URL setting such as api_base_url
	// MinLen is the least length of a Text value (e.g. signing secrets).
	MinLen int
	// Check is an extra rule for the value; it returns what to fix or "".
	Check func(v string) string
}

// Spec is the settings a kind of channel takes.
type Spec struct {
	Kind   Kind
	Fields []Field
}

// Field returns the named field of the spec.
func (s Spec) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Names lists the spec's setting names in their documented order.
func (s Spec) Names() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// Mask returns settings with every secret value replaced by its mask
// (see MaskSecret); other values are copied.
func (s Spec) Mask(in Settings) Settings {
	out := make(Settings, len(in))
	for k, v := range in {
		out[k] = v
		if f, ok := s.Field(k); ok && f.Secret {
			str, _ := v.(string)
			out[k] = MaskSecret(str)
		}
	}
	return out
}

// MaskPrefix starts every masked secret.
const MaskPrefix = "••••"

// MaskSecret hides a secret: MaskPrefix, then its last four characters
// when it is at least 16 characters long (so a user can tell two tokens
// apart without the rest being guessable), else nothing more.
func MaskSecret(v string) string {
	r := []rune(v)
	if len(r) < 16 {
		return MaskPrefix
	}
	return MaskPrefix + string(r[len(r)-4:])
}

// Kinds returns every kind, sorted.
func Kinds() []Kind { return allKinds() }

// KindNames returns every kind as text, sorted, for messages.
func KindNames() string {
	var names []string
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// SpecOf returns the spec of a kind; false for an unknown kind.
func SpecOf(k Kind) (Spec, bool) {
	fields, ok := fieldsOf(k)
	return Spec{Kind: k, Fields: fields}, ok
}
