package clock

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/plugins/internal/tool"
)

func (p *Plugin) nowOp(_ context.Context, args map[string]any) (string, error) {
	name, err := tool.OptString(args, "timezone", "")
	if err != nil {
		return "", err
	}
	loc, label, err := zone("timezone", name)
	if err != nil {
		return "", err
	}
	return describe(p.now().In(loc), label), nil
}

func (p *Plugin) convert(_ context.Context, args map[string]any) (string, error) {
	from, _, err := zoneArg(args, "from_timezone")
	if err != nil {
		return "", err
	}
	toName, err := tool.String(args, "to_timezone")
	if err != nil {
		return "", err
	}
	to, label, err := zone("to_timezone", toName)
	if err != nil {
		return "", err
	}
	text, err := tool.String(args, "time")
	if err != nil {
		return "", err
	}
	t, err := p.parseTime("time", text, from)
	if err != nil {
		return "", err
	}
	return describe(t.In(to), label), nil
}

func (p *Plugin) add(_ context.Context, args map[string]any) (string, error) {
	loc, label, err := zoneArg(args, "timezone")
	if err != nil {
		return "", err
	}
	text, err := tool.OptString(args, "time", "now")
	if err != nil {
		return "", err
	}
	t, err := p.parseTime("time", text, loc)
	if err != nil {
		return "", err
	}
	years, err := tool.OptInt(args, "years", 0, -10000, 10000)
	if err != nil {
		return "", err
	}
	months, err := tool.OptInt(args, "months", 0, -120000, 120000)
	if err != nil {
		return "", err
	}
	days, rest, err := durationArg(args)
	if err != nil {
		return "", err
	}
	if years == 0 && months == 0 && days == 0 && rest == 0 {
		return "", errs.Invalid("duration", "is required (or years or months)")
	}
	return describe(t.AddDate(years, months, days).Add(rest), label), nil
}

func durationArg(args map[string]any) (int, time.Duration, error) {
	text, err := tool.OptString(args, "duration", "")
	if err != nil || text == "" {
		return 0, 0, err
	}
	return parseDuration(text)
}

func (p *Plugin) difference(_ context.Context, args map[string]any) (string, error) {
	loc, _, err := zoneArg(args, "timezone")
	if err != nil {
		return "", err
	}
	var ends [2]time.Time
	for i, field := range []string{"start", "end"} {
		text, err := tool.String(args, field)
		if err != nil {
			return "", err
		}
		if ends[i], err = p.parseTime(field, text, loc); err != nil {
			return "", err
		}
	}
	d := ends[1].Sub(ends[0])
	b, _ := json.Marshal(map[string]any{
		"seconds": math.Round(d.Seconds()*1000) / 1000,
		"days":    math.Round(d.Hours()/24*1000) / 1000,
		"words":   inWords(d),
	})
	return string(b), nil
}

func zoneArg(args map[string]any, field string) (*time.Location, string, error) {
	name, err := tool.OptString(args, field, "")
	if err != nil {
		return nil, "", err
	}
	return zone(field, name)
}

// inWords writes d as "3 days 4 hours 5 minutes", with "-" when negative.
func inWords(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	parts := []string{}
	units := []struct {
		name string
		size time.Duration
	}{{"day", 24 * time.Hour}, {"hour", time.Hour}, {"minute", time.Minute}, {"second", time.Second}}
	for _, u := range units {
		n := int64(d / u.size)
		d -= time.Duration(n) * u.size
		if n == 0 {
			continue
		}
		unit := u.name
		if n != 1 {
			unit += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, unit))
	}
	if len(parts) == 0 {
		return "0 seconds"
	}
	return sign + strings.Join(parts, " ")
}
