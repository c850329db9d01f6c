// Package clock is the built-in "time" plugin: the current time in a time
// zone, conversion between zones and date arithmetic. It embeds the IANA
// time-zone database, so it works on hosts without one.
package clock

import (
	"context"
	_ "embed"
	"encoding/json"
	"time"
	_ "time/tzdata" // zones must resolve in minimal containers too

	"github.com/pergola-ai/pergola/plugins/internal/tool"
)

// The plugin's identity in the catalog.
const (
	ID          = "time"
	Name        = "Time"
	Description = "Current time, time-zone conversion and date arithmetic, computed locally."
)

//go:embed openapi.yaml
var manifest string

// Manifest returns the plugin's OpenAPI document.
func Manifest() []byte { return []byte(manifest) }

// Plugin runs the operations against a clock.
type Plugin struct {
	now func() time.Time
}

// New returns the plugin reading the current time from now; nil means
// time.Now.
func New(now func() time.Time) *Plugin {
	if now == nil {
		now = time.Now
	}
	return &Plugin{now: now}
}

// Ops returns the operations by operationId.
func (p *Plugin) Ops() tool.Ops {
	return tool.Ops{"now": p.nowOp, "convert": p.convert, "add": p.add, "difference": p.difference}
}

// Invoke runs operationID. Bad arguments fail with errs.Invalid naming
// them, e.g. "timezone" for an unknown zone.
func (p *Plugin) Invoke(ctx context.Context, operationID string, args map[string]any) (string, error) {
	return p.Ops().Invoke(ctx, operationID, args)
}

// describe renders t for the model as compact JSON.
func describe(t time.Time, zone string) string {
	abbr, _ := t.Zone()
	b, _ := json.Marshal(map[string]any{
		"time":         t.Format(time.RFC3339),
		"timezone":     zone,
		"abbreviation": abbr,
		"utc_offset":   t.Format("-07:00"),
		"weekday":      t.Weekday().String(),
		"date":         t.Format(time.DateOnly),
		"clock":        t.Format(time.TimeOnly),
		"unix":         t.Unix(),
	})
	return string(b)
}
