package trigger

import (
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Limits of a trigger's fields.
const (
	MaxNameLen   = 100
	MaxRateLimit = 6000
)

// Check validates a new trigger's fields (not its schedule: ParseSchedule)
// and fills in the defaults, naming the field at fault.
func (t *Trigger) Check() error {
	t.Name = strings.TrimSpace(t.Name)
	if t.Name == "" || utf8.RuneCountInString(t.Name) > MaxNameLen {
		return errs.Invalid("name", "give a name of 1 to %d characters", MaxNameLen)
	}
	if err := t.checkTarget(); err != nil {
		return err
	}
	if t.RateLimit < 0 || t.RateLimit > MaxRateLimit {
		return errs.Invalid("rate_limit", "must be 0 (default) to %d calls a minute", MaxRateLimit)
	}
	switch t.Kind {
	case KindSchedule:
		return t.checkSchedule()
	case KindWebhook:
		return t.checkWebhook()
	}
	return errs.Invalid("kind", "must be schedule or webhook")
}

func (t *Trigger) checkSchedule() error {
	if t.Missed == "" {
		t.Missed = MissedSkip
	}
	if t.Missed != MissedSkip && t.Missed != MissedRunOnce {
		return errs.Invalid("missed", "must be skip or run_once")
	}
	return nil
}

func (t *Trigger) checkWebhook() error {
	if t.Auth == "" {
		t.Auth = AuthHMAC
	}
	if t.Auth != AuthHMAC && t.Auth != AuthHeader {
		return errs.Invalid("auth", "must be hmac or header")
	}
	if t.Answer == "" {
		t.Answer = AnswerAsync
	}
	if t.Answer != AnswerSync && t.Answer != AnswerAsync {
		return errs.Invalid("answer", "must be sync or async")
	}
	return nil
}
