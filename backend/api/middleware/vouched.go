package middleware

import (
	"crypto/sha256"
	"time"
)

const (
	// vouchFor is how long an accepted token passes a blocked address.
	vouchFor = 10 * time.Minute
	// maxVouched bounds how many accepted tokens a process remembers.
	maxVouched = 10000
)

// vouched remembers the SHA-256 of tokens that authenticated recently,
// never the tokens themselves.
type vouched map[[32]byte]time.Time

func (v vouched) add(secret string, now time.Time) {
	if len(v) >= maxVouched {
		v.prune(now)
	}
	v[sha256.Sum256([]byte(secret))] = now.Add(vouchFor)
}

func (v vouched) has(secret string, now time.Time) bool {
	until, ok := v[sha256.Sum256([]byte(secret))]
	return ok && until.After(now)
}

// prune drops expired entries, then everything if still full: forgetting
// only costs a lookup the next time.
func (v vouched) prune(now time.Time) {
	for k, until := range v {
		if !until.After(now) {
			delete(v, k)
		}
	}
	if len(v) >= maxVouched {
		clear(v)
	}
}
