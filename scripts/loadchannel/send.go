package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// event is one request to send; dup marks the retry of an earlier id.
type event struct {
	id, user, text string
	dup            bool
}

// ack is what the server answered to one request, and when.
type ack struct {
	sent, at time.Time
	status   int
	err      error
}

// plan lists n distinct events, each tenth followed by a retry of itself,
// so retries race with the original as a platform's would.
func plan(n int) []event {
	evs := make([]event, 0, n+n/10)
	for i := 0; i < n; i++ {
		ev := event{id: fmt.Sprintf("load-%d", i), user: fmt.Sprintf("user-%d", i), text: fmt.Sprintf("hello from user %d", i)}
		evs = append(evs, ev)
		if i%10 == 9 {
			ev.dup = true
			evs = append(evs, ev)
		}
	}
	return evs
}

// send posts every event from o.senders goroutines and returns the acks,
// index for index.
func send(o options, evs []event) []ack {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.senders,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}}
	url := o.base + "/channels/webhook/" + o.channel
	acks := make([]ack, len(evs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < o.senders; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				acks[i] = post(client, url, o.secret, evs[i])
			}
		}()
	}
	for i := range evs {
		next <- i
	}
	close(next)
	wg.Wait()
	return acks
}

// post sends one signed event and expects 202.
func post(client *http.Client, url, secret string, ev event) ack {
	body, _ := json.Marshal(map[string]string{"event_id": ev.id, "user_id": ev.user, "text": ev.text})
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	a := ack{sent: time.Now()}
	req.Header.Set("X-Pergola-Signature", sign(secret, a.sent, body))
	resp, err := client.Do(req)
	if err != nil {
		a.err = err
		return a
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a.at, a.status = time.Now(), resp.StatusCode
	if resp.StatusCode != http.StatusAccepted {
		a.err = fmt.Errorf("status %d: %.200s", resp.StatusCode, raw)
	}
	return a
}

// sign is the X-Pergola-Signature of body at t:
// t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>.
func sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}
