package clock

import (
	"testing"
	"time"

	"github.com/pergola-ai/pergola/plugins/internal/plugintest"
)

// fixed is Saturday 2026-03-28 23:30 UTC, the eve of the European switch to
// summer time.
func fixed() time.Time { return time.Date(2026, 3, 28, 23, 30, 0, 0, time.UTC) }

func TestManifest(t *testing.T) {
	plugintest.CheckManifest(t, Manifest(), New(fixed).Ops())
}

func TestOperations(t *testing.T) {
	plugintest.Run(t, New(fixed).Ops(), []plugintest.Case{
		{Name: "now in UTC by default", Op: "now", Want: `{"abbreviation":"UTC","clock":"23:30:00","date":"2026-03-28","time":"2026-03-28T23:30:00Z","timezone":"UTC","unix":1774740600,"utc_offset":"+00:00","weekday":"Saturday"}`},
		{Name: "now in Tokyo", Op: "now", Args: map[string]any{"timezone": "Asia/Tokyo"}, Contains: []string{`"time":"2026-03-29T08:30:00+09:00"`, `"weekday":"Sunday"`, `"timezone":"Asia/Tokyo"`}},
		{Name: "now at an offset", Op: "now", Args: map[string]any{"timezone": "UTC+5:30"}, Contains: []string{`"time":"2026-03-29T05:00:00+05:30"`}},
		{Name: "now at a negative offset", Op: "now", Args: map[string]any{"timezone": "-03"}, Contains: []string{`"utc_offset":"-03:00"`}},
		{Name: "unknown zone", Op: "now", Args: map[string]any{"timezone": "Mars/Olympus"}, ErrField: "timezone", ErrText: "Mars/Olympus"},
		{Name: "server local zone refused", Op: "now", Args: map[string]any{"timezone": "Local"}, ErrField: "timezone"},
		{Name: "zone not a string", Op: "now", Args: map[string]any{"timezone": 3.0}, ErrField: "timezone"},
		{Name: "offset out of range", Op: "now", Args: map[string]any{"timezone": "+15"}, ErrField: "timezone"},
		{Name: "convert New York to Paris", Op: "convert", Args: map[string]any{"time": "2024-05-01 09:00", "from_timezone": "America/New_York", "to_timezone": "Europe/Paris"}, Contains: []string{`"time":"2024-05-01T15:00:00+02:00"`, `"abbreviation":"CEST"`}},
		{Name: "convert a time with an offset", Op: "convert", Args: map[string]any{"time": "2024-01-15T12:00:00Z", "from_timezone": "Asia/Tokyo", "to_timezone": "America/Los_Angeles"}, Contains: []string{`"time":"2024-01-15T04:00:00-08:00"`}},
		{Name: "convert now", Op: "convert", Args: map[string]any{"time": "now", "to_timezone": "Europe/London"}, Contains: []string{`"time":"2026-03-28T23:30:00Z"`}},
		{Name: "convert to a bad zone", Op: "convert", Args: map[string]any{"time": "now", "to_timezone": "Nowhere"}, ErrField: "to_timezone"},
		{Name: "convert from a bad zone", Op: "convert", Args: map[string]any{"time": "now", "from_timezone": "Nowhere", "to_timezone": "UTC"}, ErrField: "from_timezone"},
		{Name: "convert without target", Op: "convert", Args: map[string]any{"time": "now"}, ErrField: "to_timezone"},
		{Name: "convert an unreadable time", Op: "convert", Args: map[string]any{"time": "next tuesday", "to_timezone": "UTC"}, ErrField: "time"},
		{Name: "add 90 days", Op: "add", Args: map[string]any{"time": "2024-01-01", "duration": "90d"}, Contains: []string{`"date":"2024-03-31"`}},
		{Name: "add keeps wall clock over DST", Op: "add", Args: map[string]any{"time": "2026-03-28 12:00", "timezone": "Europe/Paris", "duration": "1d"}, Contains: []string{`"time":"2026-03-29T12:00:00+02:00"`}},
		{Name: "subtract hours", Op: "add", Args: map[string]any{"time": "2024-01-01T00:00:00Z", "duration": "-1h30m"}, Contains: []string{`"time":"2023-12-31T22:30:00Z"`}},
		{Name: "add weeks to now", Op: "add", Args: map[string]any{"duration": "2w"}, Contains: []string{`"date":"2026-04-11"`}},
		{Name: "add months and years", Op: "add", Args: map[string]any{"time": "2024-01-31", "months": 1.0, "years": "1"}, Contains: []string{`"date":"2025-03-03"`}},
		{Name: "add nothing", Op: "add", Args: map[string]any{"time": "2024-01-01"}, ErrField: "duration"},
		{Name: "add a bad duration", Op: "add", Args: map[string]any{"duration": "soon"}, ErrField: "duration"},
		{Name: "add fractional months", Op: "add", Args: map[string]any{"months": 1.5}, ErrField: "months"},
		{Name: "difference in days", Op: "difference", Args: map[string]any{"start": "2024-01-01", "end": "2024-03-01 06:00"}, Want: `{"days":60.25,"seconds":5205600,"words":"60 days 6 hours"}`},
		{Name: "negative difference", Op: "difference", Args: map[string]any{"start": "2024-01-02", "end": "2024-01-01"}, Contains: []string{`"words":"-1 day"`}},
		{Name: "difference needs end", Op: "difference", Args: map[string]any{"start": "2024-01-02"}, ErrField: "end"},
		{Name: "unknown operation", Op: "tomorrow", ErrField: "operation"},
	})
}
