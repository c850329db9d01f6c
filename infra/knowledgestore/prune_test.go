package knowledgestore

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSelectTerms(t *testing.T) {
	cases := []struct {
		name string
		df   map[string]int64
		docs int64
		want []string
	}{
		{"common dropped", map[string]int64{"the": 900, "zeppelin": 2, "of": 500}, 1000, []string{"zeppelin"}},
		{"rarest first", map[string]int64{"b": 30, "a": 10, "c": 20}, 1000, []string{"a", "c", "b"}},
		{"absent dropped", map[string]int64{"gone": 0, "here": 5}, 1000, []string{"here"}},
		{"only common keeps rarest", map[string]int64{"the": 900, "of": 500, "and": 500}, 1000, []string{"and", "of"}},
		{"small base keeps all", map[string]int64{"the": 100, "fox": 1}, 100, []string{"fox", "the"}},
		{"threshold inclusive", map[string]int64{"x": 300, "y": 301}, 1000, []string{"x"}},
		{"nothing", map[string]int64{}, 1000, nil},
	}
	for _, c := range cases {
		if got := SelectTerms(c.df, c.docs); !cmp.Equal(got, c.want) {
			t.Errorf("%s: SelectTerms = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSelectTermsCapsRarestFirst(t *testing.T) {
	df := map[string]int64{}
	for i := 0; i < 50; i++ {
		df[fmt.Sprintf("t%02d", i)] = int64(100 - i)
	}
	got := SelectTerms(df, 1000)
	if len(got) != MaxQueryTerms || got[0] != "t49" || got[MaxQueryTerms-1] != "t18" {
		t.Fatalf("SelectTerms of 50 terms = %v, want the %d rarest, t49 first", got, MaxQueryTerms)
	}
}
