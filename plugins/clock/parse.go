package clock

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// offsetZone matches a fixed UTC offset: "+05:30", "-3", "UTC+2", "GMT-0800".
var offsetZone = regexp.MustCompile(`^(?i:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$`)

// zone loads the time zone named by the argument field: an IANA name, a
// UTC offset, or "" for UTC. It fails with errs.Invalid naming field.
func zone(field, name string) (*time.Location, string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "" || strings.EqualFold(name, "UTC") || strings.EqualFold(name, "GMT") || name == "Z":
		return time.UTC, "UTC", nil
	case strings.EqualFold(name, "Local"):
		return nil, "", errs.Invalid(field, "the server's local zone is not available; name an IANA zone such as Europe/Paris")
	}
	if m := offsetZone.FindStringSubmatch(name); m != nil {
		return fixedZone(field, name, m)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, "", errs.Invalid(field, "unknown time zone %q; use an IANA name such as Europe/Paris or America/New_York, or an offset such as +05:30", name)
	}
	return loc, loc.String(), nil
}

func fixedZone(field, name string, m []string) (*time.Location, string, error) {
	hours, _ := strconv.Atoi(m[2])
	minutes := 0
	if m[3] != "" {
		minutes, _ = strconv.Atoi(m[3])
	}
	if hours > 14 || minutes > 59 {
		return nil, "", errs.Invalid(field, "offset %q is out of range", name)
	}
	secs := hours*3600 + minutes*60
	if m[1] == "-" {
		secs = -secs
	}
	label := "UTC" + m[1] + strconv.Itoa(hours)
	if minutes != 0 {
		label += ":" + m[3]
	}
	return time.FixedZone(label, secs), label, nil
}

// parseTime reads the argument field in loc, unless it carries an offset;
// "now" (or "") is the current time. It fails with errs.Invalid naming
// field.
func (p *Plugin) parseTime(field, text string, loc *time.Location) (time.Time, error) {
	text = strings.TrimSpace(text)
	if text == "" || strings.EqualFold(text, "now") {
		return p.now().In(loc), nil
	}
	layouts := []string{
		time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04",
		"2006-01-02 15:04", "2006-01-02 15:04:05Z07:00", time.DateOnly,
	}
	for _, layout := range layouts {
		if t, err := time.ParseInLocation(layout, text, loc); err == nil {
			return t.In(loc), nil
		}
	}
	return time.Time{}, errs.Invalid(field, "cannot read %q as a time; write it like 2024-05-01T09:00:00Z, 2024-05-01 09:00 or 2024-05-01", text)
}

// durationPart is one signed number with its unit in a duration.
var durationPart = regexp.MustCompile(`(\d+(?:\.\d+)?)(ms|w|d|h|m|s)`)

// parseDuration reads "1w2d3h30m", "-90d" or "45m" into whole days (added
// on the calendar, so they keep the wall clock across daylight saving) and
// the rest. It fails with errs.Invalid naming "duration".
func parseDuration(text string) (days int, rest time.Duration, err error) {
	s := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(text)), " ", "")
	sign := 1
	if after, ok := strings.CutPrefix(s, "-"); ok {
		s, sign = after, -1
	} else {
		s = strings.TrimPrefix(s, "+")
	}
	bad := errs.Invalid("duration", "cannot read %q; write it like 90d, 1w2d, -3h30m or 45m (units w, d, h, m, s, ms)", text)
	if s == "" || durationPart.ReplaceAllString(s, "") != "" {
		return 0, 0, bad
	}
	for _, m := range durationPart.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.ParseFloat(m[1], 64)
		if n > 1e6 {
			return 0, 0, errs.Invalid("duration", "%s%s is too large", m[1], m[2])
		}
		switch m[2] {
		case "w", "d":
			if m[2] == "w" {
				n *= 7
			}
			whole := math.Trunc(n)
			days += int(whole)
			rest += time.Duration((n - whole) * float64(24*time.Hour))
		case "h":
			rest += time.Duration(n * float64(time.Hour))
		case "m":
			rest += time.Duration(n * float64(time.Minute))
		case "s":
			rest += time.Duration(n * float64(time.Second))
		case "ms":
			rest += time.Duration(n * float64(time.Millisecond))
		}
	}
	return sign * days, time.Duration(sign) * rest, nil
}
