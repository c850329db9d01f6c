// Command loadchat drives N concurrent streaming chats against a running
// Pergola through /v3/chat and reports errors, time to first token, total
// time and the server's memory. scripts/load-chat.sh starts everything.
//
//	go run ./scripts/loadchat -base http://127.0.0.1:8888 -token pat_x -bot 123 -n 2000 -pid 4242
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/scripts/internal/loadstat"
)

type result struct {
	ttft, total time.Duration
	err         error
}

func main() {
	base := flag.String("base", "http://127.0.0.1:8888", "Pergola base URL")
	token := flag.String("token", "", "personal access token")
	bot := flag.String("bot", "", "published bot id")
	n := flag.Int("n", 100, "concurrent streaming chats")
	pid := flag.Int("pid", 0, "server process id, to report its memory")
	flag.Parse()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *n, MaxConnsPerHost: 0,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}, Timeout: 120 * time.Second}

	results := make([]result, *n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	peak := make(chan int64, 1)
	stop := make(chan struct{})
	go loadstat.WatchRSS(*pid, stop, peak)
	for i := 0; i < *n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = chat(client, *base, *token, *bot, fmt.Sprintf("user-%d", i))
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(began)
	close(stop)
	report(results, wall, <-peak)
}

// chat runs one streamed chat and checks the stream ends with done.
func chat(client *http.Client, base, token, bot, user string) result {
	body, _ := json.Marshal(map[string]any{"bot_id": bot, "user_id": user, "stream": true,
		"additional_messages": []map[string]any{{"role": "user", "content": "hello from " + user, "content_type": "text"}}})
	req, _ := http.NewRequest("POST", base+"/v3/chat", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return result{err: fmt.Errorf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))}
	}
	var r result
	sc := bufio.NewScanner(resp.Body)
	last := ""
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "event: ") {
			last = strings.TrimPrefix(line, "event: ")
			if last == "conversation.message.delta" && r.ttft == 0 {
				r.ttft = time.Since(t0)
			}
			if last == "conversation.chat.failed" {
				r.err = fmt.Errorf("chat failed")
			}
		}
	}
	r.total = time.Since(t0)
	if r.err == nil && (sc.Err() != nil || last != "done") {
		r.err = fmt.Errorf("stream ended at %q: %v", last, sc.Err())
	}
	return r
}

func report(results []result, wall time.Duration, peakKB int64) {
	var ttft, total []time.Duration
	errs := map[string]int{}
	for _, r := range results {
		if r.err != nil {
			errs[r.err.Error()]++
			continue
		}
		ttft = append(ttft, r.ttft)
		total = append(total, r.total)
	}
	slices.Sort(ttft)
	slices.Sort(total)
	fmt.Printf("chats: %d, ok: %d, errors: %d, wall: %s, peak server RSS: %d MB\n",
		len(results), len(total), len(results)-len(total), wall.Round(time.Millisecond), peakKB/1024)
	if len(total) > 0 {
		fmt.Printf("time to first token: p50 %s  p95 %s  p99 %s\n", loadstat.Pct(ttft, 50), loadstat.Pct(ttft, 95), loadstat.Pct(ttft, 99))
		fmt.Printf("whole chat:          p50 %s  p95 %s  p99 %s\n", loadstat.Pct(total, 50), loadstat.Pct(total, 95), loadstat.Pct(total, 99))
	}
	for e, n := range errs {
		fmt.Printf("error x%d: %s\n", n, e)
	}
	if len(errs) > 0 {
		os.Exit(1)
	}
}
