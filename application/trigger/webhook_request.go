package trigger

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// MaxRequestIDLen is the longest Idempotency-Key (or X-Request-Id) a
// webhook call may send.
const MaxRequestIDLen = 128

// requestKeys returns the keys that make a webhook call a repeat of an
// earlier one: its request id, and for an hmac trigger its signature, so
// that a copy of a signed request replayed within the signature's
// tolerance answers as a duplicate instead of running again. The request
// id is not signed: a replayed copy with a new one is still caught by its
// signature.
func requestKeys(t *trigger.Trigger, c Call) ([]string, error) {
	var keys []string
	if c.RequestID != "" {
		if !utf8.ValidString(c.RequestID) || utf8.RuneCountInString(c.RequestID) > MaxRequestIDLen {
			return nil, errs.Invalid("Idempotency-Key", "must be text of at most %d characters", MaxRequestIDLen)
		}
		keys = append(keys, c.RequestID)
	}
	if t.Auth == trigger.AuthHMAC {
		keys = append(keys, "sig:"+channel.SignedKey(t.Secret, c.Header(channel.SignatureHeader), c.Body))
	}
	return keys, nil
}

// claimRequest claims every key of a call. When one was claimed before,
// the call is a repeat: the keys it claimed are released and it gets the
// first call's run (0 while that one starts) as a duplicate answer.
func (s *Service) claimRequest(ctx context.Context, id int64, keys []string) ([]string, *Answer, error) {
	var claimed []string
	for _, k := range keys {
		runID, first, err := s.d.Store.ClaimRequest(ctx, id, k)
		if err != nil || !first {
			s.release(context.WithoutCancel(ctx), id, claimed)
			if err != nil {
				return nil, nil, err
			}
			return nil, &Answer{RunID: runID, Duplicate: true, Status: 200}, nil
		}
		claimed = append(claimed, k)
	}
	return claimed, nil, nil
}

// settleRequest records the run a call started under its keys; a call
// that started none (refused inputs, an unpublished workflow) releases
// them, so that a corrected retry with the same request id runs.
func (s *Service) settleRequest(ctx context.Context, id int64, keys []string, a *Answer) {
	if a == nil || a.RunID == 0 {
		s.release(ctx, id, keys)
		return
	}
	for _, k := range keys {
		if err := s.d.Store.SetRequestRun(ctx, id, k, a.RunID); err != nil {
			s.d.Log.Warn("could not record a webhook request's run", "trigger", id, "err", err)
		}
	}
}

func (s *Service) release(ctx context.Context, id int64, keys []string) {
	var err error
	for _, k := range keys {
		err = errors.Join(err, s.d.Store.ReleaseRequest(ctx, id, k))
	}
	if err != nil {
		s.d.Log.Warn("could not release a webhook request", "trigger", id, "err", err)
	}
}
