package trigger

import (
	"math"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/pergola-ai/pergola/domain/errs"
)

// MinInterval is the shortest interval of a schedule; tests may allow
// shorter ones through Limits.
const MinInterval = time.Minute

// MaxInterval is the longest interval of a schedule: a year.
const MaxInterval = 366 * 24 * time.Hour

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Schedule computes the ticks of a schedule trigger.
type Schedule struct {
	expr     string
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
		if t.Interval > MaxInterval {
			return nil, errs.Invalid("interval_seconds", "the interval must be at most %.0f seconds (a year)", MaxInterval.Seconds())
		}
		return &Schedule{interval: t.Interval}, nil
	}
	loc, err := location(t.TimeZone)
	if err != nil {
		return nil, err
	}
	if err := checkCronForm(t.Cron, minInterval); err != nil {
		return nil, err
	}
	c, err := cronParser.Parse(t.Cron)
	if err != nil {
		return nil, errs.Invalid("cron", "%v", err)
	}
	return &Schedule{expr: t.Cron, cron: c, loc: loc}, nil
}

// IntervalOf converts interval_seconds as a request gives it, refusing
// what a Duration cannot hold instead of wrapping around.
func IntervalOf(seconds float64) (time.Duration, error) {
	if math.Abs(seconds) > MaxInterval.Seconds() {
		return 0, errs.Invalid("interval_seconds", "the interval must be at most %.0f seconds (a year)", MaxInterval.Seconds())
	}
	return time.Duration(seconds * float64(time.Second)), nil
}

// location loads an IANA time zone; "" is UTC. "Local" (the server's
// zone) is refused: a schedule must not move with the machine.
func location(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	l, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, errs.Invalid("time_zone", "unknown IANA time zone %q", name)
	}
	return l, nil
}

// checkCronForm refuses the forms the cron library takes that would get
// around the trigger's own fields: "@every" (an interval shorter than the
// minimum) and a CRON_TZ= or TZ= prefix (a second time zone).
func checkCronForm(expr string, minInterval time.Duration) error {
	e := strings.TrimSpace(expr)
	switch {
	case strings.HasPrefix(e, "@every"):
		return errs.Invalid("cron", "@every is not taken: give interval_seconds instead (at least %s)", minInterval)
	case strings.HasPrefix(e, "CRON_TZ=") || strings.HasPrefix(e, "TZ="):
		return errs.Invalid("cron", "give the time zone in time_zone, not in the expression")
	}
	return nil
}

// First returns the first tick after now. A cron expression that matches
// no date (say "0 0 30 2 *", February 30th) is errs.ErrInvalid on cron.
func (s *Schedule) First(now time.Time) (time.Time, error) {
	next := s.Next(now)
	if next.IsZero() {
		return next, errs.Invalid("cron", "%q never fires: no date matches it", s.expr)
	}
	return next, nil
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
