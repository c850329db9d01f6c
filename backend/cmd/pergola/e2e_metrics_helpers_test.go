package main

import (
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scraped is one scrape of /metrics, by metric family.
type scraped map[string]*dto.MetricFamily

func scrape(t *testing.T, s *testServer) scraped {
	t.Helper()
	resp, err := http.Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return scraped(fams)
}

// series returns the samples of name (a histogram's "_count" reads its
// sample counts) whose labels include the given name/value pairs.
func (m scraped) series(name string, kv ...string) []float64 {
	base, count := name, false
	if trimmed, ok := strings.CutSuffix(name, "_count"); ok && m[name] == nil {
		base, count = trimmed, true
	}
	f := m[base]
	if f == nil {
		return nil
	}
	var out []float64
	for _, s := range f.Metric {
		if matches(s, kv) {
			out = append(out, sampleValue(s, count))
		}
	}
	return out
}

func matches(s *dto.Metric, kv []string) bool {
	have := map[string]string{}
	for _, l := range s.Label {
		have[l.GetName()] = l.GetValue()
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if have[kv[i]] != kv[i+1] {
			return false
		}
	}
	return true
}

func sampleValue(s *dto.Metric, count bool) float64 {
	switch {
	case count && s.Histogram != nil:
		return float64(s.Histogram.GetSampleCount())
	case s.Counter != nil:
		return s.Counter.GetValue()
	case s.Gauge != nil:
		return s.Gauge.GetValue()
	}
	return -1
}

// want checks the one series of name with these labels has value v.
func (m scraped) want(t *testing.T, name string, v float64, kv ...string) {
	t.Helper()
	got := m.series(name, kv...)
	if len(got) != 1 || got[0] != v {
		t.Errorf("%s%v = %v, want [%v]", name, kv, got, v)
	}
}

// wantSeries checks name has n series.
func (m scraped) wantSeries(t *testing.T, name string, n int) {
	t.Helper()
	if got := len(m.series(name)); got != n {
		t.Errorf("%s has %d series, want %d: %v", name, got, n, m[name])
	}
}

// label returns the one value label takes in name's series with the
// labels kv.
func (m scraped) label(t *testing.T, name, label string, kv ...string) string {
	t.Helper()
	vals := map[string]bool{}
	if f := m[name]; f != nil {
		for _, s := range f.Metric {
			if !matches(s, kv) {
				continue
			}
			for _, l := range s.Label {
				if l.GetName() == label {
					vals[l.GetValue()] = true
				}
			}
		}
	}
	if len(vals) != 1 {
		t.Fatalf("%s: label %s takes %v, want one value", name, label, vals)
	}
	for v := range vals {
		return v
	}
	return ""
}
