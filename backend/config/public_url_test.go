package config

import (
	"strings"
	"testing"
)

func TestPublicURL(t *testing.T) {
	for _, tc := range []struct {
		value, want string
	}{
		{"", ""},
		{"https://bots.example.com/", ""},
		{"http://10.0.0.5:8888/pergola", ""},
		{"bots.example.com", "PERGOLA_PUBLIC_URL: must be an absolute http(s) URL"},
		{"ftp://bots.example.com", "PERGOLA_PUBLIC_URL: must be an absolute http(s) URL"},
		{"https://bots.example.com/?x=1", "must not carry a query"},
	} {
		env := map[string]string{"PERGOLA_PUBLIC_URL": tc.value}
		_, err := Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if tc.want == "" && err != nil {
			t.Errorf("%q: %v", tc.value, err)
		}
		if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: error %v, want %q", tc.value, err, tc.want)
		}
	}
	cfg := Config{PublicURL: "https://bots.example.com/"}
	if got := cfg.PublicBase(); got != "https://bots.example.com" {
		t.Errorf("PublicBase = %q", got)
	}
}
