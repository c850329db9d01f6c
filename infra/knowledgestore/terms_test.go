package knowledgestore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIndexTerms(t *testing.T) {
	cases := map[string][]string{
		"Hello, World! 42":  {"hello", "world", "42"},
		"花园机器人":             {"花", "花园", "园", "园机", "机", "机器", "器", "器人", "人"},
		"AI助手v2":            {"ai", "助", "助手", "手", "v2"},
		"東京の天気":             {"東", "東京", "京", "京の", "の", "の天", "天", "天気", "気"},
		"  ---  ":           nil,
		"naïve café":        {"naïve", "café"},
		"e-mail to_someone": {"e", "mail", "to", "someone"},
	}
	for in, want := range cases {
		if got := IndexTerms(in); !cmp.Equal(got, want) {
			t.Errorf("IndexTerms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQueryTerms(t *testing.T) {
	cases := map[string][]string{
		"Refund refund POLICY": {"refund", "policy"},
		"花园":                   {"花园"},
		"机器人":                  {"机器", "器人"},
		"蛙":                    {"蛙"},
		"what is 花园?":          {"what", "is", "花园"},
		"":                     nil,
	}
	for in, want := range cases {
		if got := QueryTerms(in); !cmp.Equal(got, want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLongTermsAreCutAtARuneBoundary(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	got := IndexTerms(long)
	if len(got) != 1 || len(got[0]) != 64 || !strings.HasPrefix(long, got[0]) {
		t.Fatalf("IndexTerms(80 bytes) = %q", got)
	}
	if q := QueryTerms(long); !cmp.Equal(q, got) {
		t.Fatalf("the query term %q differs from the indexed %q", q, got)
	}
}

func TestTopKKeepsTheBestTiesByID(t *testing.T) {
	top := NewTopK(3)
	for i, s := range []float64{0.1, 0.9, 0.5, 0.9, 0.3, 0.7} {
		top.Offer(int64(i+1), s)
	}
	want := []Scored{{2, 0.9}, {4, 0.9}, {6, 0.7}}
	if got := top.Best(); !cmp.Equal(got, want) {
		t.Fatalf("Best = %v, want %v", got, want)
	}
}

func TestVectorRoundTrip(t *testing.T) {
	v := []float32{0.5, -1.25, 3e-8, 1e30}
	got, err := DecodeVector(EncodeVector(v))
	if err != nil || !cmp.Equal(got, v) {
		t.Fatalf("round trip = %v, %v", got, err)
	}
	if _, err := DecodeVector([]byte{1, 2, 3}); err == nil {
		t.Fatal("3 bytes decoded as a vector")
	}
}
