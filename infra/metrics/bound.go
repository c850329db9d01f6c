package metrics

import (
	"strconv"
	"sync"
)

// Other is the label value of everything past a Bound.
const Other = "other"

// Bound keeps a label's cardinality bounded: the first Max distinct values
// it sees keep their own label value, every later one becomes "other". With
// an allow-list only the listed values keep theirs (at most Max of them).
// A value seen once keeps its label for the life of the process, so a
// series never changes its name midway. It is safe for concurrent use.
type Bound struct {
	mu    sync.Mutex
	max   int
	allow map[string]bool
	seen  map[string]bool
}

// NewBound returns a Bound of max values (0: every value is "other");
// allow, when not empty, lists the only values that may keep their own.
func NewBound(max int, allow []string) *Bound {
	b := &Bound{max: max, seen: map[string]bool{}}
	if len(allow) > 0 {
		b.allow = map[string]bool{}
		for _, v := range allow {
			b.allow[v] = true
		}
	}
	return b
}

// Label returns v itself, or "other" when v is past the bound.
func (b *Bound) Label(v string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen[v] {
		return v
	}
	if (b.allow != nil && !b.allow[v]) || len(b.seen) >= b.max {
		return Other
	}
	b.seen[v] = true
	return v
}

// ID is Label of a numeric id; 0 (none) is "none".
func (b *Bound) ID(id int64) string {
	if id == 0 {
		return "none"
	}
	return b.Label(strconv.FormatInt(id, 10))
}

// Bounds are the bounds of the per-workspace, per-bot, per-workflow and
// per-tool series (see README, Observability).
type Bounds struct {
	Workspaces, Bots, Workflows, Tools int
	// AllowBots, when set, lists the only bot ids with series of their own.
	AllowBots []string
}

// DefaultBounds are the bounds when none are configured.
func DefaultBounds() Bounds {
	return Bounds{Workspaces: 100, Bots: 100, Workflows: 100, Tools: 200}
}

// Labels holds one Bound per bounded label; the series of one registry
// share it, so a workspace is "other" in all of them or in none.
type Labels struct {
	workspaces, bots, workflows, tools *Bound
}

// NewLabels returns the bounded labels of b.
func NewLabels(b Bounds) *Labels {
	return &Labels{workspaces: NewBound(b.Workspaces, nil), bots: NewBound(b.Bots, b.AllowBots),
		workflows: NewBound(b.Workflows, nil), tools: NewBound(b.Tools, nil)}
}

// tool returns the plugin and tool labels of a call: past the bound of
// distinct pairs both are "other".
func (l *Labels) tool(plugin, tool string) (string, string) {
	if plugin == "" {
		plugin = "unknown"
	}
	if l.tools.Label(plugin+"\x00"+tool) == Other {
		return Other, Other
	}
	return plugin, tool
}
