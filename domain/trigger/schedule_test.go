package trigger

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestScheduleNextInTimeZone(t *testing.T) {
	s, err := ParseSchedule(&Trigger{Cron: "0 8 * * *", TimeZone: "Europe/Paris"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 7, 1, 7, 0, 0, 0, time.UTC) // 09:00 in Paris (summer time)
	if got, want := s.Next(from), time.Date(2026, 7, 2, 6, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("next 08:00 Paris after %v = %v, want %v", from, got, want)
	}
}

func TestScheduleAfterMissedSkipsTheBacklog(t *testing.T) {
	s, _ := ParseSchedule(&Trigger{Interval: time.Minute}, time.Minute)
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := s.AfterMissed(tick, tick.Add(10*time.Second)); !got.Equal(tick.Add(time.Minute)) {
		t.Errorf("on time: next = %v, want the following tick", got)
	}
	now := tick.Add(time.Hour + 30*time.Second)
	if got := s.AfterMissed(tick, now); !got.After(now) {
		t.Errorf("an hour late: next = %v, want a tick after %v, not the backlog", got, now)
	}
}

func TestScheduleRefusals(t *testing.T) {
	for _, c := range []struct {
		field string
		tr    Trigger
	}{
		{"cron", Trigger{Cron: "61 * * * *"}},
		{"time_zone", Trigger{Cron: "@daily", TimeZone: "Nowhere/Land"}},
		{"interval_seconds", Trigger{Interval: time.Second}},
		{"interval", Trigger{Cron: "@daily", Interval: time.Hour}},
		{"interval_seconds", Trigger{Interval: MaxInterval + time.Second}},
		{"cron", Trigger{Cron: "@every 1s"}}, // would get around the minimum interval
		{"cron", Trigger{Cron: "TZ=Asia/Tokyo 0 8 * * *"}},
		{"time_zone", Trigger{Cron: "@daily", TimeZone: "Local"}},
	} {
		_, err := ParseSchedule(&c.tr, time.Minute)
		var fe *errs.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: error %v, want one on %s", c.tr, err, c.field)
		}
	}
}

func TestScheduleThatNeverFiresIsRefused(t *testing.T) {
	s, err := ParseSchedule(&Trigger{Cron: "0 0 30 2 *"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var fe *errs.FieldError
	if _, err := s.First(time.Now()); !errors.As(err, &fe) || fe.Field != "cron" || !strings.Contains(fe.Reason, "never fires") {
		t.Errorf("February 30th: First error %v, want one on cron saying it never fires", err)
	}
}

func TestIntervalOfRefusesWhatOverflows(t *testing.T) {
	if d, err := IntervalOf(90); err != nil || d != 90*time.Second {
		t.Errorf("90 s = %v, %v", d, err)
	}
	for _, sec := range []float64{1e18, -1e18, MaxInterval.Seconds() + 1} {
		var fe *errs.FieldError
		if _, err := IntervalOf(sec); !errors.As(err, &fe) || fe.Field != "interval_seconds" {
			t.Errorf("%g s: error %v, want one on interval_seconds", sec, err)
		}
	}
}
