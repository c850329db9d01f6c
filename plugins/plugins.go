// Package plugins is the catalog of built-in plugins: plugins implemented
// in-process, each in a folder of its own with the OpenAPI manifest the
// model sees and the Go code behind its operations.
package plugins

import (
	"context"
	"net/http"
	"time"

	"github.com/pergola-ai/pergola/plugins/calculator"
	"github.com/pergola-ai/pergola/plugins/clock"
	"github.com/pergola-ai/pergola/plugins/jsontool"
	"github.com/pergola-ai/pergola/plugins/texttool"
	"github.com/pergola-ai/pergola/plugins/webfetch"
)

// Builtin is a plugin implemented in-process.
type Builtin struct {
	// ID is stable across releases: "time", "calculator", "webfetch",
	// "json", "text".
	ID          string
	Name        string
	Description string
	// OpenAPI is the manifest: an OpenAPI 3.0 document (YAML) whose
	// operations, by operationId, are the tools. Every operation takes a
	// JSON request body whose properties are the tool's arguments.
	OpenAPI []byte
	// Invoke runs the operation operationID with the model's arguments
	// and returns the text for the model. A bad argument fails with an
	// error matching errs.ErrInvalid that names it (errs.FieldError), an
	// unknown operation with one naming "operation"; other errors (a page
	// that cannot be fetched) describe what went wrong. It is safe for
	// concurrent use.
	Invoke func(ctx context.Context, operationID string, args map[string]any) (string, error)
}

// Deps is what built-in plugins need from the process.
type Deps struct {
	// HTTP is the guarded egress client (egress.Guard.Client) that webfetch
	// sends through; nil makes webfetch fail with errs.ErrUnavailable.
	HTTP *http.Client
	// Now is the clock of the time plugin; nil means time.Now.
	Now func() time.Time
}

// Catalog returns every built-in plugin, in a stable order.
func Catalog(deps Deps) []Builtin {
	return []Builtin{
		{ID: clock.ID, Name: clock.Name, Description: clock.Description, OpenAPI: clock.Manifest(), Invoke: clock.New(deps.Now).Invoke},
		{ID: calculator.ID, Name: calculator.Name, Description: calculator.Description, OpenAPI: calculator.Manifest(), Invoke: calculator.New().Invoke},
		{ID: webfetch.ID, Name: webfetch.Name, Description: webfetch.Description, OpenAPI: webfetch.Manifest(), Invoke: webfetch.New(deps.HTTP).Invoke},
		{ID: jsontool.ID, Name: jsontool.Name, Description: jsontool.Description, OpenAPI: jsontool.Manifest(), Invoke: jsontool.New().Invoke},
		{ID: texttool.ID, Name: texttool.Name, Description: texttool.Description, OpenAPI: texttool.Manifest(), Invoke: texttool.New().Invoke},
	}
}
