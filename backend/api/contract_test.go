package api

import (
	"context"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/prometheus/client_golang/prometheus"
	"gopkg.in/yaml.v3"

	"github.com/pergola-ai/pergola/idl"
)

// allowAll is a limiter that never limits; no request is served here.
type allowAll struct{}

func (allowAll) Allow(context.Context, string, int, time.Duration) (bool, time.Duration, error) {
	return true, 0, nil
}

// routeParam matches hertz's ":name" and "*name" path segments.
var routeParam = regexp.MustCompile(`[:*]([A-Za-z0-9_]+)`)

// registeredRoutes returns "METHOD /path/{param}" for every route Register
// installs.
func registeredRoutes(t *testing.T) map[string]bool {
	t.Helper()
	h := server.New(server.WithHostPorts("127.0.0.1:0"))
	Register(h.Engine, Deps{
		Log:     slog.New(slog.DiscardHandler),
		Limiter: allowAll{},
		Metrics: prometheus.NewRegistry(),
	})
	out := map[string]bool{}
	for _, r := range h.Routes() {
		out[r.Method+" "+routeParam.ReplaceAllString(r.Path, "{$1}")] = true
	}
	return out
}

// documentedOperation is one operation of the merged OpenAPI document with
// the path parameters it declares, its own and its path item's.
type documentedOperation struct {
	pathParams map[string]bool
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// documentedOperations returns the operations of idl.Merged() keyed like
// registeredRoutes.
func documentedOperations(t *testing.T) map[string]documentedOperation {
	t.Helper()
	b, err := idl.Merged()
	if err != nil {
		t.Fatalf("idl.Merged: %v", err)
	}
	var doc struct {
		Paths      map[string]map[string]any `yaml:"paths"`
		Components struct {
			Parameters map[string]map[string]any `yaml:"parameters"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("idl.Merged is not YAML: %v", err)
	}
	pathParams := func(where string, list any) map[string]bool {
		out := map[string]bool{}
		items, _ := list.([]any)
		for _, it := range items {
			p, _ := it.(map[string]any)
			if ref, ok := p["$ref"].(string); ok {
				name, found := strings.CutPrefix(ref, "#/components/parameters/")
				if p = doc.Components.Parameters[name]; !found || p == nil {
					t.Errorf("%s: parameter $ref %q does not resolve", where, ref)
					continue
				}
			}
			if p["in"] == "path" {
				name, _ := p["name"].(string)
				out[name] = true
			}
		}
		return out
	}
	ops := map[string]documentedOperation{}
	for path, item := range doc.Paths {
		shared := pathParams(path, item["parameters"])
		for _, m := range httpMethods {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			key := strings.ToUpper(m) + " " + path
			params := pathParams(key, op["parameters"])
			maps.Copy(params, shared)
			ops[key] = documentedOperation{pathParams: params}
		}
	}
	return ops
}

// TestRoutesMatchOpenAPI keeps router.go and idl/*.yaml in step: every
// route is documented and every documented operation has a route.
func TestRoutesMatchOpenAPI(t *testing.T) {
	routes := registeredRoutes(t)
	ops := documentedOperations(t)
	if len(routes) == 0 || len(ops) == 0 {
		t.Fatalf("found %d routes and %d documented operations", len(routes), len(ops))
	}
	var undocumented, unrouted []string
	for r := range routes {
		if _, ok := ops[r]; !ok {
			undocumented = append(undocumented, r)
		}
	}
	for op := range ops {
		if !routes[op] {
			unrouted = append(unrouted, op)
		}
	}
	if len(undocumented) > 0 {
		slices.Sort(undocumented)
		t.Errorf("routes missing from idl/*.yaml:\n  %s", strings.Join(undocumented, "\n  "))
	}
	if len(unrouted) > 0 {
		slices.Sort(unrouted)
		t.Errorf("operations in idl/*.yaml with no route:\n  %s", strings.Join(unrouted, "\n  "))
	}
}

// templateParam matches the "{name}" segments of an OpenAPI path.
var templateParam = regexp.MustCompile(`\{([^}]+)\}`)

// TestOpenAPIPathParametersDeclared checks that each {param} of a
// documented path is declared as a path parameter of the operation or its
// path item, and that no path parameter is declared that the path lacks.
func TestOpenAPIPathParametersDeclared(t *testing.T) {
	ops := documentedOperations(t)
	for _, key := range slices.Sorted(maps.Keys(ops)) {
		_, path, _ := strings.Cut(key, " ")
		inPath := map[string]bool{}
		for _, m := range templateParam.FindAllStringSubmatch(path, -1) {
			inPath[m[1]] = true
			if !ops[key].pathParams[m[1]] {
				t.Errorf("%s: path parameter {%s} is not declared in parameters", key, m[1])
			}
		}
		for name := range ops[key].pathParams {
			if !inPath[name] {
				t.Errorf("%s: declares path parameter %q that the path does not have", key, name)
			}
		}
	}
}
