package trigger

import (
	"time"

	"github.com/robfig/cron/v3"

	"github.com/pergola-ai/pergola/domain/errs"
)

// MinInterval is the shortest interval of a schedule; tests may allow
// shorter ones through Limits.
const MinInterval = time.Minute

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Schedule computes the ticks of a schedule trigger.
type Schedule struct {
	cron     cron.Schedule
	loc      *time.Location
	interval time.Duration
}

// ParseSchedule checks a trigger's cron expression and time zone, or its
// interval (at least minInterval), naming the field at fault.
func ParseSchedule(t *Trigger, minInterval time.Duration) (*Schedule, error) {
	if t.Cron == "" && t.Interval == 0 {
		return nil, errs.Invalid("cron", "a schedule needs a cron expression or an interval")
	}
	if t.Cron != "" && t.Interval != 0 {
		return nil, errs.Invalid("interval", "give a cron expression or an interval, not both")
	}
	if t.Interval != 0 {
		if t.Interval < minInterval {
			return nil, errs.Invalid("interval_seconds", "the interval must be at least %s", minInterval)
		}
		return &Schedule{interval: t.Interval}, nil
	}
	loc := time.UTC
	if t.TimeZone != "" {
		l, err := time.LoadLocation(t.TimeZone)
		if err != nil {
			return nil, errs.Invalid("time_zone", "unknown IANA time zone %q", t.TimeZone)
		}
		loc = l
	}
	c, err := cronParser.Parse(t.Cron)
	if err != nil {
		return nil, errs.Invalid("cron", "%v", err)
	}
	return &Schedule{cron: c, loc: loc}, nil
}

// Next returns the first tick after from.
func (s *Schedule) Next(from time.Time) time.Time {
	if s.interval > 0 {
		return from.Add(s.interval).Truncate(time.Millisecond)
	}
	return s.cron.Next(from.In(s.loc)).UTC()
}

// AfterMissed returns the tick to wait for once tick was claimed at now:
// the first tick after tick, or, when ticks were missed (the next one is
// already past), the first tick after now, so that a schedule never fires
// a backlog. Whether the missed tick itself runs is Missed's call.
func (s *Schedule) AfterMissed(tick, now time.Time) time.Time {
	next := s.Next(tick)
	if next.After(now) {
		return next
	}
	return s.Next(now)
}
