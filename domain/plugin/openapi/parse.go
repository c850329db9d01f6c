// Package openapi turns an OpenAPI 3.0 or 3.1 document (JSON or YAML) into
// the tools of a plugin: one per operation, its parameters (path, query,
// header, cookie and body) gathered into one JSON Schema with $refs
// resolved and required fields, enums and defaults kept.
package openapi

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// Result is what a document yields.
type Result struct {
	Tools []plugin.Tool
	// Warnings name the operations left out and why (e.g. a multipart
	// body), so the builder knows what the plugin cannot do.
	Warnings []string
	// Title and Description are the document's info, for a plugin created
	// without a name or description.
	Title       string
	Description string
}

// methods are the operations of a path item, in the order tools are made.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Parse reads doc and returns its tools. serverURL, when not empty,
// replaces the servers the document declares. Every error matches
// errs.ErrInvalid, is reported on the field "openapi" (or "server_url")
// and names the operation and the part of it that is wrong.
func Parse(doc []byte, serverURL string) (*Result, error) {
	root, err := decode(doc)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(root); err != nil {
		return nil, err
	}
	p := &parser{r: &resolver{root: root}, res: &Result{}, names: map[string]string{}}
	if info, ok := root["info"].(map[string]any); ok {
		p.res.Title, _ = info["title"].(string)
		p.res.Description, _ = info["description"].(string)
	}
	if serverURL != "" {
		if err := plugin.ValidateServerURL("server_url", serverURL); err != nil {
			return nil, err
		}
		p.override = strings.TrimRight(serverURL, "/")
	}
	if p.server, err = p.pickServer(root["servers"], "", "servers"); err != nil {
		return nil, err
	}
	if err := p.walkPaths(root); err != nil {
		return nil, err
	}
	return p.res, nil
}

func decode(doc []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, errs.Invalid("openapi", "is required: the OpenAPI 3 document as JSON or YAML text")
	}
	if len(doc) > plugin.MaxDocumentBytes {
		return nil, errs.Invalid("openapi", "is %d bytes; the limit is %d bytes (1 MiB)", len(doc), plugin.MaxDocumentBytes)
	}
	var raw any
	if err := yaml.Unmarshal(doc, &raw); err != nil {
		return nil, errs.Invalid("openapi", "is neither valid JSON nor valid YAML: %v", err)
	}
	budget := maxNodes
	norm, err := normalize(raw, &budget)
	if err != nil {
		return nil, errs.Invalid("openapi", "%v", err)
	}
	root, ok := norm.(map[string]any)
	if !ok {
		return nil, errs.Invalid("openapi", "must be an OpenAPI document (an object with openapi, info and paths)")
	}
	return root, nil
}

func checkVersion(root map[string]any) error {
	if _, ok := root["swagger"]; ok {
		return errs.Invalid("openapi", "Swagger 2.0 documents are not supported; convert it to OpenAPI 3 (for example with swagger2openapi)")
	}
	v, _ := root["openapi"].(string)
	if v == "" {
		return errs.Invalid("openapi", `has no "openapi" version field; an OpenAPI 3.0 or 3.1 document starts with openapi: 3.0.3 or 3.1.0`)
	}
	if !strings.HasPrefix(v, "3.0") && !strings.HasPrefix(v, "3.1") {
		return errs.Invalid("openapi", "version %q is not supported; use OpenAPI 3.0 or 3.1", v)
	}
	return nil
}

type parser struct {
	r        *resolver
	res      *Result
	override string            // server_url given by the builder
	server   string            // the document's first server
	names    map[string]string // tool name -> the operation that took it
}

// pickServer returns the URL of the first server in list, its variables
// filled with their defaults, or fallback when list is empty. A relative
// URL is an error unless the builder gave server_url.
func (p *parser) pickServer(list any, fallback, at string) (string, error) {
	if p.override != "" {
		return p.override, nil
	}
	servers, _ := list.([]any)
	if len(servers) == 0 {
		return fallback, nil
	}
	s, _ := servers[0].(map[string]any)
	raw, _ := s["url"].(string)
	vars, _ := s["variables"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		v, _ := vars[name].(map[string]any)
		def, ok := v["default"].(string)
		if !ok {
			return "", errs.Invalid("openapi", "%s[0].variables.%s has no default", at, name)
		}
		raw = strings.ReplaceAll(raw, "{"+name+"}", def)
	}
	if err := plugin.ValidateServerURL("openapi", raw); err != nil {
		return "", errs.Invalid("openapi", "%s[0].url %q is not an absolute http(s) URL; give server_url with the API's base URL", at, raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

func (p *parser) walkPaths(root map[string]any) error {
	paths, _ := root["paths"].(map[string]any)
	for _, path := range sortedKeys(paths) {
		item, _, err := p.r.deref(paths[path])
		if err != nil {
			return errs.Invalid("openapi", "paths[%q]: %v", path, err)
		}
		server, err := p.pickServer(item["servers"], p.server, fmt.Sprintf("paths[%q].servers", path))
		if err != nil {
			return err
		}
		for _, method := range methods {
			op, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			o := &operation{p: p, path: path, method: method, item: item, op: op}
			if err := o.build(server); err != nil {
				return err
			}
		}
	}
	switch n := len(p.res.Tools); {
	case n == 0 && len(p.res.Warnings) == 0:
		return errs.Invalid("openapi", "the document has no operations under paths; each operation becomes a tool")
	case n == 0:
		return errs.Invalid("openapi", "none of the operations can be used: %s", strings.Join(p.res.Warnings, "; "))
	case n > plugin.MaxTools:
		return errs.Invalid("openapi", "the document has %d operations; a plugin may have at most %d", n, plugin.MaxTools)
	}
	return nil
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
