package slackfake

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Sign returns X-Slack-Signature for body sent at ts (unix seconds):
// v0= and the hex HMAC-SHA256 of "v0:{ts}:{body}" under secret.
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	_, _ = io.WriteString(m, "v0:"+strconv.FormatInt(ts, 10)+":")
	_, _ = m.Write(body)
	return "v0=" + hex.EncodeToString(m.Sum(nil))
}

// SendEvent posts body to url signed now with secret, as the Events API
// does, and returns the answer's status and body.
func SendEvent(ctx context.Context, client *http.Client, url, secret string, body []byte) (int, []byte, error) {
	ts := time.Now().Unix()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("X-Slack-Signature", Sign(secret, ts, body))
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, out, err
}
