package mcp

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

func TestHeadersOnlyReachTheServersHost(t *testing.T) {
	seen := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	cases := []struct {
		name, host, want string
	}{
		{"server host", u.Host, "Bearer t"},
		{"another host", "other.example:80", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := &headerTransport{host: tc.host, headers: map[string]string{"Authorization": "Bearer t"}}
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := <-seen; got != tc.want {
				t.Fatalf("Authorization = %q, want %q", got, tc.want)
			}
			if req.Header.Get("Authorization") != "" {
				t.Fatal("the caller's request was changed")
			}
		})
	}
}
