// Command warmreq measures warm, sequential requests against a running
// Pergola: GET /v1/users/me (authentication and one user read), GET
// /v1/bot/get_online_info (authentication, bot, membership and version)
// and non-streamed POST /v3/chat (the create call, which answers once the
// chat and its question are stored). It prints p50 and p99 of each; the
// requests are sequential so the figures are per-request costs, not
// throughput. scripts/warm-requests.sh starts the server and the fake
// model and runs it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"time"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8888", "Pergola base URL")
	token := flag.String("token", "", "personal access token")
	bot := flag.String("bot", "", "published bot id")
	n := flag.Int("n", 2000, "measured requests of each kind")
	warm := flag.Int("warm", 200, "requests of each kind sent first and not measured")
	flag.Parse()
	c := client{base: *base, token: *token, http: &http.Client{Timeout: 30 * time.Second}}
	kinds := []struct {
		name string
		call func() error
	}{
		{"GET /v1/users/me", func() error { return c.do("GET", "/v1/users/me", nil) }},
		{"GET /v1/bot/get_online_info", func() error { return c.do("GET", "/v1/bot/get_online_info?bot_id="+*bot, nil) }},
		{"POST /v3/chat (stream=false)", func() error { return c.do("POST", "/v3/chat", chatBody(*bot)) }},
	}
	fmt.Printf("%-32s %10s %10s %6s\n", "request", "p50", "p99", "n")
	for _, k := range kinds {
		d, err := measure(k.call, *warm, *n)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", k.name, err)
			os.Exit(1)
		}
		slices.Sort(d)
		fmt.Printf("%-32s %10s %10s %6d\n", k.name, pct(d, 50), pct(d, 99), len(d))
	}
}

// measure runs call warm times, then n times timed.
func measure(call func() error, warm, n int) ([]time.Duration, error) {
	for range warm {
		if err := call(); err != nil {
			return nil, err
		}
	}
	d := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if err := call(); err != nil {
			return nil, err
		}
		d = append(d, time.Since(t0))
	}
	return d, nil
}

// pct returns the p-th percentile of sorted durations, to the microsecond.
func pct(d []time.Duration, p int) time.Duration {
	return d[min(len(d)-1, len(d)*p/100)].Round(time.Microsecond)
}

func chatBody(bot string) map[string]any {
	return map[string]any{"bot_id": bot, "user_id": "warm", "stream": false,
		"additional_messages": []map[string]any{{"role": "user", "content": "hello", "content_type": "text"}}}
}

type client struct {
	base, token string
	http        *http.Client
}

// do sends one request and fails unless the envelope says code 0.
func (c client) do(method, path string, body any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || resp.StatusCode != 200 || env.Code != 0 {
		return fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, raw)
	}
	return nil
}
