// Package memory holds the in-process implementations of Pergola's small
// coordination contracts: Cache, Locker, Queue, PubSub and RateLimiter. They
// are the embedded default (one process, nothing to install) and behave like
// their counterparts in package redis; package kvtest holds the contract suite
// both must pass.
//
// The value types shared by both back ends (Lock, Message, ConsumeOptions,
// Subscription) are aliases of unnamed types, declared identically in each
// package. Go treats identical unnamed types as the same type, so
// memory.Message and redis.Message are interchangeable and a consumer can
// declare one interface that either back end satisfies, without either
// package importing the other.
package memory

import (
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

func checkName(field, v string) error {
	if v == "" {
		return errs.Invalid(field, "must not be empty")
	}
	return nil
}

func checkTTL(field string, ttl time.Duration, zeroOK bool) error {
	if ttl < 0 || (ttl == 0 && !zeroOK) {
		return errs.Invalid(field, "must be positive, got %s", ttl)
	}
	return nil
}

func clone(b []byte) []byte {
	return append(make([]byte, 0, len(b)), b...)
}
