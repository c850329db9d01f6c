package usage

import (
	"math"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Key is a dimension usage can be grouped by.
type Key string

// The dimensions usage can be grouped by.
const (
	ByDay       Key = "day"
	ByBot       Key = "bot"
	ByModel     Key = "model"
	ByWorkspace Key = "workspace"
)

var keys = []Key{ByDay, ByBot, ByModel, ByWorkspace}

// ParseGroupBy reads a comma list of keys; empty means by day.
func ParseGroupBy(s string) ([]Key, error) {
	if strings.TrimSpace(s) == "" {
		return []Key{ByDay}, nil
	}
	var out []Key
	for _, part := range strings.Split(s, ",") {
		k := Key(strings.TrimSpace(part))
		if !slices.Contains(keys, k) {
			return nil, errs.Invalid("group_by", "must be a comma list of day, bot, model, workspace; got %q", part)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// Row is the usage of one group. Only the grouped keys are set.
type Row struct {
	Day          string // YYYY-MM-DD in UTC
	BotID        int64
	Model        string
	WorkspaceID  int64
	Chats        int64
	Runs         int64
	Errors       int64
	InputTokens  int64
	OutputTokens int64
	LatencyP50MS int64
	LatencyP95MS int64
}

// group is a row being summed and the latencies of its finished records.
type group struct {
	Row
	latencies []int64
}

// Aggregate groups records by the keys, in key order (days ascending).
// Latency counts successful finished records only: a failure's duration
// says little about how fast answers come.
func Aggregate(recs []Record, by []Key) []Row {
	groups := map[Row]*group{}
	var order []Row
	for i := range recs {
		k := keyOf(&recs[i], by)
		g, ok := groups[k]
		if !ok {
			g = &group{Row: k}
			groups[k] = g
			order = append(order, k)
		}
		g.add(&recs[i])
	}
	slices.SortFunc(order, compareRows)
	out := make([]Row, len(order))
	for i, k := range order {
		out[i] = groups[k].finish()
	}
	return out
}

// keyOf is the zero row with only the grouped keys of r set.
func keyOf(r *Record, by []Key) Row {
	var k Row
	for _, key := range by {
		switch key {
		case ByDay:
			k.Day = r.CreatedAt.UTC().Format("2006-01-02")
		case ByBot:
			k.BotID = r.BotID
		case ByModel:
			k.Model = r.Model
		case ByWorkspace:
			k.WorkspaceID = r.WorkspaceID
		}
	}
	return k
}

func (g *group) add(r *Record) {
	if r.Chat {
		g.Chats++
	} else {
		g.Runs++
	}
	if r.Failed {
		g.Errors++
	}
	g.InputTokens += r.InputTokens
	g.OutputTokens += r.OutputTokens
	if r.Succeeded && r.FinishedAt != nil {
		g.latencies = append(g.latencies, max(0, r.FinishedAt.Sub(r.CreatedAt).Milliseconds()))
	}
}

func (g *group) finish() Row {
	slices.Sort(g.latencies)
	g.LatencyP50MS = Percentile(g.latencies, 50)
	g.LatencyP95MS = Percentile(g.latencies, 95)
	return g.Row
}

// Percentile is the nearest-rank percentile p of sorted values; 0 when
// there are none.
func Percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func compareRows(a, b Row) int {
	if c := strings.Compare(a.Day, b.Day); c != 0 {
		return c
	}
	if a.WorkspaceID != b.WorkspaceID {
		return cmpInt(a.WorkspaceID, b.WorkspaceID)
	}
	if a.BotID != b.BotID {
		return cmpInt(a.BotID, b.BotID)
	}
	return strings.Compare(a.Model, b.Model)
}

func cmpInt(a, b int64) int {
	if a < b {
		return -1
	}
	return 1
}
