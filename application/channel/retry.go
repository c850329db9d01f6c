package channel

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Apology is what the end user reads when the bot could not answer and
// the turn gave no text of its own to say so (see TurnError).
const Apology = "Something went wrong while answering; please try again."

// TurnError is a chat turn that gave no answer. Apology is the short
// text the end user reads instead (the API's last error of the chat:
// never the provider's words nor an internal id); Retry says whether
// trying the turn again may help (the model was unavailable); ChatID
// is the failed chat, 0 when none started.
type TurnError struct {
	Apology string
	Retry   bool
	ChatID  int64
	Err     error
}

func (e *TurnError) Error() string { return e.Err.Error() }

func (e *TurnError) Unwrap() error { return e.Err }

// maxExcerpt bounds the error text recorded with an event, in runes.
const maxExcerpt = 300

// turnFailed records a failed turn: due again after a backoff when
// retry allows it, attempts are left and the event is young (it stays
// received), or answered with the apology. A streamed message that
// showed part of an answer is marked as unfinished then, and the
// apology goes as a message of its own.
func (r *Runtime) turnFailed(ctx context.Context, d *channel.Delivery, st *streamer, err error, retry bool) *channel.Delivery {
	tries := d.TurnAttempts + 1
	st.interrupted(ctx)
	if wait, again := r.retryTurn(d, err, tries); retry && again {
		next := r.d.Now().Add(wait)
		r.d.Log.Warn("channels: a turn failed; trying again", "event", d.ID, "attempt", tries, "wait", wait, "err", err)
		return r.update(ctx, d, func(x *channel.Delivery) {
			x.TurnAttempts, x.NextAttemptAt = tries, &next
			x.Error = "turn " + strconv.Itoa(tries) + " failed, retrying: " + excerpt(err.Error())
		})
	}
	r.d.Log.Warn("channels: the bot did not answer; sending the apology", "event", d.ID, "attempts", tries, "err", err)
	return r.update(ctx, d, func(x *channel.Delivery) {
		x.Status, x.Answer, x.Apology, x.TurnAttempts, x.NextAttemptAt = channel.DeliveryAnswered, apologyFor(err), true, tries, nil
		x.Handle, x.PartsSent = nil, 0
		var te *TurnError
		if errors.As(err, &te) && te.ChatID != 0 {
			x.ChatID = te.ChatID
		}
		x.Error = "the bot did not answer (" + strconv.Itoa(tries) + " " + plural(tries, "try", "tries") + "): " + excerpt(err.Error())
	})
}

// retryTurn is the wait before try tries+1 of a failed turn, and whether
// there is one: the turn failed in a way another try may mend, fewer than
// TurnAttempts were made and the event will still be young then.
func (r *Runtime) retryTurn(d *channel.Delivery, err error, tries int) (time.Duration, bool) {
	if !retryableTurn(err) || tries >= r.d.TurnAttempts {
		return 0, false
	}
	wait := r.d.TurnBackoff << (tries - 1)
	return wait, r.young(d, wait)
}

// retrySend is the wait before the send after attempt failed ones, and
// whether there is one: the failure is not permanent, attempts are left
// and the event will still be young then.
func (r *Runtime) retrySend(d *channel.Delivery, err error, attempt int) (time.Duration, bool) {
	if permanent(err) || attempt >= r.d.DeliveryAttempts {
		return 0, false
	}
	wait := pause(err, min(r.d.Backoff<<(attempt-1), maxRetryAfter))
	return wait, r.young(d, wait)
}

// young reports whether the event will be within the retry window after
// wait.
func (r *Runtime) young(d *channel.Delivery, wait time.Duration) bool {
	return r.d.Now().Add(wait).Sub(d.CreatedAt) <= r.d.RetryWindow
}

// waitDue waits until the event's next try is due; false when ctx ended
// first.
func (r *Runtime) waitDue(ctx context.Context, d *channel.Delivery) bool {
	if d.NextAttemptAt == nil {
		return ctx.Err() == nil
	}
	if wait := d.NextAttemptAt.Sub(r.d.Now()); wait > 0 {
		return sleep(ctx, wait)
	}
	return ctx.Err() == nil
}

// retryableTurn reports whether another try of a failed turn may answer:
// a TurnError says so itself; a bad request, a missing or unpublished bot
// and a canceled chat will not change.
func retryableTurn(err error) bool {
	var te *TurnError
	if errors.As(err, &te) {
		return te.Retry
	}
	for _, final := range []error{errs.ErrInvalid, errs.ErrForbidden, errs.ErrNotFound, errs.ErrConflict, errs.ErrUnauthenticated} {
		if errors.Is(err, final) {
			return false
		}
	}
	return true
}

// apologyFor is the text the end user reads for a failed turn.
func apologyFor(err error) string {
	var te *TurnError
	if errors.As(err, &te) && strings.TrimSpace(te.Apology) != "" {
		return te.Apology
	}
	return Apology
}

// apologySep joins why the bot did not answer and why its apology could
// not be sent (yet) in an event's error.
const apologySep = "; sending the apology: "

// withSendError is the error of an event after a failed send: the send's
// error, after why the bot did not answer when the answer is the apology.
func withSendError(x *channel.Delivery, why string) string {
	if !x.Apology {
		return why
	}
	return turnWhy(x) + apologySep + why
}

// turnWhy is why the bot did not answer an event whose answer is the
// apology; "" for others.
func turnWhy(x *channel.Delivery) string {
	if !x.Apology {
		return ""
	}
	base, _, _ := strings.Cut(x.Error, apologySep)
	return base
}

// excerpt cuts an error's text to maxExcerpt runes.
func excerpt(s string) string {
	if utf8.RuneCountInString(s) <= maxExcerpt {
		return s
	}
	return string([]rune(s)[:maxExcerpt]) + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
