package trigger

import (
	"errors"
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
	for field, tr := range map[string]Trigger{
		"cron":             {Cron: "61 * * * *"},
		"time_zone":        {Cron: "@daily", TimeZone: "Nowhere/Land"},
		"interval_seconds": {Interval: time.Second},
		"interval":         {Cron: "@daily", Interval: time.Hour},
	} {
		_, err := ParseSchedule(&tr, time.Minute)
		var fe *errs.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%+v: error %v, want one on %s", tr, err, field)
		}
	}
}
