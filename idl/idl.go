// Package idl embeds Pergola's HTTP contract: one OpenAPI 3 document per
// surface. Merged joins them into one document; the server serves the copy
// `go generate ./idl/merged` makes of it (package idl/merged), so that
// start-up does not parse and merge YAML.
package idl

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"
)

//go:embed *.yaml
var files embed.FS

// Documents returns the surface documents by file name.
func Documents() (map[string][]byte, error) {
	names, err := fs.Glob(files, "*.yaml")
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(names))
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out[n] = b
	}
	return out, nil
}

type document struct {
	OpenAPI    string         `yaml:"openapi"`
	Info       map[string]any `yaml:"info"`
	Servers    []any          `yaml:"servers,omitempty"`
	Tags       []any          `yaml:"tags,omitempty"`
	Paths      map[string]any `yaml:"paths"`
	Components map[string]any `yaml:"components,omitempty"`
	Security   []any          `yaml:"security,omitempty"`
}

// Merged joins every surface document into one. A path or component
// defined twice with different content is an error.
func Merged() ([]byte, error) {
	docs, err := Documents()
	if err != nil {
		return nil, err
	}
	out := document{
		OpenAPI: "3.0.3",
		Info: map[string]any{"title": "Pergola API", "version": "1",
			"description": "Every HTTP surface of Pergola: ops, the Coze-compatible OpenAPI, the console API and the admin API.",
			"license":     map[string]any{"name": "Apache 2.0", "url": "https://www.apache.org/licenses/LICENSE-2.0"}},
		Paths: map[string]any{}, Components: map[string]any{},
		Security: []any{map[string]any{"bearer": []any{}}},
	}
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		var d document
		if err := yaml.Unmarshal(docs[name], &d); err != nil {
			return nil, fmt.Errorf("idl %s: %w", name, err)
		}
		out.Tags = append(out.Tags, d.Tags...)
		out.Servers = appendNew(out.Servers, d.Servers)
		if err := mergeInto(out.Paths, d.Paths, name+" paths"); err != nil {
			return nil, err
		}
		for section, v := range d.Components {
			m, _ := v.(map[string]any)
			dst, _ := out.Components[section].(map[string]any)
			if dst == nil {
				dst = map[string]any{}
				out.Components[section] = dst
			}
			if err := mergeInto(dst, m, name+" components."+section); err != nil {
				return nil, err
			}
		}
	}
	return yaml.Marshal(out)
}

// appendNew appends the servers of src that dst does not have yet: every
// surface document names the same server, the merged one names it once.
func appendNew(dst, src []any) []any {
	for _, s := range src {
		b, _ := yaml.Marshal(s)
		if !slices.ContainsFunc(dst, func(d any) bool { a, _ := yaml.Marshal(d); return string(a) == string(b) }) {
			dst = append(dst, s)
		}
	}
	return dst
}

func mergeInto(dst, src map[string]any, where string) error {
	for k, v := range src {
		if old, ok := dst[k]; ok {
			a, _ := yaml.Marshal(old)
			b, _ := yaml.Marshal(v)
			if string(a) != string(b) {
				return fmt.Errorf("idl: %s: %q is defined differently in two documents", where, k)
			}
		}
		dst[k] = v
	}
	return nil
}
