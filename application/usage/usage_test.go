package usage

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

func TestPercentileNearestRank(t *testing.T) {
	vals := []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	cases := []struct {
		p    float64
		want int64
	}{{50, 50}, {95, 100}, {10, 10}, {1, 10}, {100, 100}}
	for _, c := range cases {
		if got := Percentile(vals, c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %d", got)
	}
	if got := Percentile([]int64{7}, 95); got != 7 {
		t.Errorf("p95 of one = %d", got)
	}
}

func at(day, hour int) time.Time { return time.Date(2026, 11, day, hour, 0, 0, 0, time.UTC) }

func rec(chat bool, bot int64, model string, created time.Time, ms int64, failed bool) Record {
	fin := created.Add(time.Duration(ms) * time.Millisecond)
	return Record{Chat: chat, WorkspaceID: 1, BotID: bot, Model: model, Failed: failed, Succeeded: !failed,
		InputTokens: 10, OutputTokens: 3, CreatedAt: created, FinishedAt: &fin}
}

func TestAggregateGroupsByDayAndBot(t *testing.T) {
	recs := []Record{
		rec(true, 1, "m", at(24, 23), 100, false), rec(true, 1, "m", at(25, 0), 300, false),
		rec(true, 2, "n", at(25, 1), 200, false), rec(false, 1, "", at(25, 2), 900, true),
		{Chat: true, WorkspaceID: 1, BotID: 1, Model: "m", CreatedAt: at(25, 3)}, // unfinished
	}
	byDay := Aggregate(recs, []Key{ByDay})
	if len(byDay) != 2 || byDay[0].Day != "2026-11-24" || byDay[1].Day != "2026-11-25" {
		t.Fatalf("by day = %+v", byDay)
	}
	d := byDay[1]
	if d.Chats != 3 || d.Runs != 1 || d.Errors != 1 || d.InputTokens != 30 || d.OutputTokens != 9 ||
		d.LatencyP50MS != 200 || d.LatencyP95MS != 300 || d.BotID != 0 || d.Model != "" {
		t.Errorf("2026-11-25 = %+v", d)
	}
	byBot := Aggregate(recs, []Key{ByBot, ByModel})
	if len(byBot) != 3 || byBot[0].BotID != 1 || byBot[0].Model != "" || byBot[0].Runs != 1 ||
		byBot[1].Model != "m" || byBot[1].Chats != 3 || byBot[2].BotID != 2 || byBot[2].Day != "" {
		t.Errorf("by bot and model = %+v", byBot)
	}
}

func TestParseGroupBy(t *testing.T) {
	if k, err := ParseGroupBy(""); err != nil || len(k) != 1 || k[0] != ByDay {
		t.Errorf("default = %v %v", k, err)
	}
	if k, err := ParseGroupBy("bot, day,bot"); err != nil || len(k) != 2 {
		t.Errorf("bot,day = %v %v", k, err)
	}
	if _, err := ParseGroupBy("day,hour"); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "group_by") {
		t.Errorf("hour: %v", err)
	}
}

type stubStore struct{ q Query }

func (s *stubStore) UsageRecords(_ context.Context, q Query, _ int) ([]Record, bool, error) {
	s.q = q
	return nil, false, nil
}

type stubAccess struct{}

func (stubAccess) Authorize(context.Context, identity.Principal, int64, identity.Role) (*identity.Member, error) {
	return &identity.Member{}, nil
}

func TestUsageBoundsTheRange(t *testing.T) {
	st := &stubStore{}
	s := New(st, stubAccess{})
	now := at(25, 12)
	s.now = func() time.Time { return now }
	member := identity.Principal{UserID: 1, Scopes: []string{identity.ScopeAll}}
	if _, err := s.Usage(context.Background(), member, Request{Query: Query{WorkspaceID: 1}}); err != nil {
		t.Fatal(err)
	}
	if !st.q.To.Equal(now) || !st.q.From.Equal(now.Add(-DefaultRange)) {
		t.Errorf("default range = %v..%v", st.q.From, st.q.To)
	}
	bad := []struct {
		q     Query
		field string
	}{{Query{WorkspaceID: 1, From: at(25, 1), To: at(24, 1)}, "from"},
		{Query{WorkspaceID: 1, From: now.Add(-93 * 24 * time.Hour), To: now}, "to"},
		{Query{}, "workspace_id"}}
	for _, b := range bad {
		_, err := s.Usage(context.Background(), member, Request{Query: b.q})
		if !errors.Is(err, errs.ErrInvalid) || !strings.HasPrefix(err.Error(), b.field+":") {
			t.Errorf("%+v: %v, want %s invalid", b.q, err, b.field)
		}
	}
	admin := identity.Principal{UserID: 1, IsAdmin: true, Scopes: []string{identity.ScopeAll}}
	if _, err := s.Usage(context.Background(), admin, Request{}); err != nil {
		t.Errorf("admin without workspace: %v", err)
	}
}
