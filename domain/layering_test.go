package domain_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/pergola-ai/pergola/"

// forbidden lists, per layer, the import prefixes it must never reach,
// directly or through another package.
var forbidden = map[string][]string{
	"domain/...": {
		"github.com/cloudwego/hertz", "gorm.io/", "github.com/redis/", "github.com/cloudwego/eino",
		module + "infra", module + "application", module + "backend", module + "workflow",
	},
	"application/...": {
		"github.com/cloudwego/hertz", "gorm.io/", "github.com/redis/", module + "infra", module + "backend",
	},
	"workflow/...": {
		"github.com/cloudwego/hertz", "gorm.io/", module + "infra", module + "backend",
	},
}

// TestLayering fails when a package of a layer depends on what the design
// keeps out of it (DESIGN.md §2): the domain stays free of frameworks.
func TestLayering(t *testing.T) {
	for layer, bad := range forbidden {
		t.Run(layer, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-e", "-deps=false",
				"-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "../"+layer).CombinedOutput()
			if err != nil {
				if strings.Contains(string(out), "matched no packages") {
					t.Skipf("no packages in %s yet", layer)
				}
				t.Fatalf("go list %s: %v\n%s", layer, err, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				fields := strings.Fields(line)
				if len(fields) == 0 {
					continue
				}
				for _, dep := range fields[1:] {
					for _, prefix := range bad {
						if strings.HasPrefix(dep, prefix) {
							t.Errorf("%s depends on %s, which %s must not reach", fields[0], dep, layer)
						}
					}
				}
			}
		})
	}
}
