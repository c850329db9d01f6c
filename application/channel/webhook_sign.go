package channel

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// SignatureHeader carries the signature of our webhook, both ways.
const SignatureHeader = "X-Pergola-Signature"

// SignatureTolerance is how old (or how far ahead) a signed request may be.
const SignatureTolerance = 5 * time.Minute

// Sign returns the X-Pergola-Signature value of body at t:
// "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret, ts string, body []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(ts))
	h.Write([]byte("."))
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks an X-Pergola-Signature value against body, comparing in
// constant time. A missing, malformed, wrong or stale signature is
// errs.ErrUnauthenticated saying which.
func Verify(secret, header string, body []byte, now time.Time) error {
	ts, sigs := parseSignature(header)
	if ts == "" || len(sigs) == 0 {
		return errs.Unauthenticated("missing or malformed %s header: want t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>", SignatureHeader)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errs.Unauthenticated("%s: t must be unix seconds", SignatureHeader)
	}
	if age := now.Sub(time.Unix(sec, 0)); age > SignatureTolerance || age < -SignatureTolerance {
		return errs.Unauthenticated("%s: the timestamp is more than 5 minutes from now; sign each request when you send it", SignatureHeader)
	}
	want := mac(secret, ts, body)
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errs.Unauthenticated("%s does not match the body: sign \"<t>.<raw body>\" with the channel's secret", SignatureHeader)
}

// SignedKey returns the signature of a header Verify accepted, in one
// spelling: every copy of one signed request (its timestamp and body)
// gets the same key, however its header is written, so a receiver can
// refuse a replayed copy.
func SignedKey(secret, header string, body []byte) string {
	ts, _ := parseSignature(header)
	return hex.EncodeToString(mac(secret, ts, body))
}

// parseSignature splits "t=…,v1=…[,v1=…]" into the timestamp and the v1
// signatures.
func parseSignature(header string) (string, []string) {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		switch {
		case !ok:
		case k == "t":
			ts = v
		case k == "v1":
			sigs = append(sigs, v)
		}
	}
	return ts, sigs
}
