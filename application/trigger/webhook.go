package trigger

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// SecretHeader carries the secret of a webhook trigger whose auth is
// header; an hmac trigger's calls are signed in channel.SignatureHeader.
const SecretHeader = "X-Pergola-Secret"

// Call is one call of a trigger's webhook.
type Call struct {
	TriggerID int64
	Body      []byte
	Query     map[string]string
	Header    func(name string) string
	// RequestID makes the call idempotent: a repeat answers the first
	// call's run. "" for none.
	RequestID string
}

// Answer is what a webhook call gets: the run, and for a sync trigger the
// workflow's output and the status it asks for (200 by default).
type Answer struct {
	RunID     int64
	Sync      bool
	Output    json.RawMessage
	Status    int
	Duplicate bool
}

// Webhook authenticates a call of an active webhook trigger and runs its
// workflow with the fixed inputs, the query and the JSON body (body wins).
// A call the trigger cannot verify, and an unknown or paused trigger, is
// errs.ErrUnauthenticated or errs.ErrNotFound; bad inputs are
// errs.ErrInvalid naming parameters.<input>.
func (s *Service) Webhook(ctx context.Context, c Call) (*Answer, error) {
	t, err := s.d.Store.Get(ctx, c.TriggerID)
	if err != nil || t.Kind != trigger.KindWebhook {
		return nil, errs.NotFound("trigger", strconv.FormatInt(c.TriggerID, 10))
	}
	if err := authenticate(t, c, s.d.Now()); err != nil {
		return nil, err
	}
	if err := s.allow(ctx, t); err != nil {
		return nil, err
	}
	if t.State != trigger.StateActive {
		return nil, errs.Conflict("trigger %d is paused: %s", t.ID, t.PauseReason)
	}
	inputs, err := callInputs(t, c)
	if err != nil {
		return nil, err
	}
	keys, err := requestKeys(t, c)
	if err != nil {
		return nil, err
	}
	claimed, dup, err := s.claimRequest(ctx, t.ID, keys)
	if err != nil || dup != nil {
		return dup, err
	}
	a, err := s.answer(ctx, t, inputs)
	s.settleRequest(context.WithoutCancel(ctx), t.ID, claimed, a)
	return a, err
}

func authenticate(t *trigger.Trigger, c Call, now time.Time) error {
	if t.Auth == trigger.AuthHeader {
		if subtle.ConstantTimeCompare([]byte(c.Header(SecretHeader)), []byte(t.Secret)) != 1 {
			return errs.Unauthenticated("missing or wrong %s header: send the trigger's secret", SecretHeader)
		}
		return nil
	}
	if err := channel.Verify(t.Secret, c.Header(channel.SignatureHeader), c.Body, now); err != nil {
		return errs.Unauthenticated("%s", strings.Replace(err.Error(), "the channel's secret", "the trigger's secret", 1))
	}
	return nil
}

// callInputs merges the fixed inputs, the query and the JSON body object.
func callInputs(t *trigger.Trigger, c Call) (map[string]any, error) {
	in := make(map[string]any, len(t.Inputs)+len(c.Query))
	for k, v := range t.Inputs {
		in[k] = v
	}
	for k, v := range c.Query {
		in[k] = v
	}
	if len(c.Body) == 0 {
		return in, nil
	}
	var body map[string]any
	if err := json.Unmarshal(c.Body, &body); err != nil {
		return nil, errs.Invalid("body", "must be a JSON object of the workflow's inputs: %v", err)
	}
	for k, v := range body {
		in[k] = v
	}
	return in, nil
}

// answer runs the workflow: async, or sync with its output.
func (s *Service) answer(ctx context.Context, t *trigger.Trigger, inputs map[string]any) (*Answer, error) {
	now := s.d.Now()
	if t.Answer != trigger.AnswerSync {
		id, err := s.fire(ctx, t, inputs, now)
		if err != nil {
			return nil, err
		}
		return &Answer{RunID: id, Status: 202}, nil
	}
	out, err := s.d.Runner.Run(ctx, creator(t), runRequest(t, inputs))
	o := trigger.Outcome{At: now, Status: trigger.StatusStarted}
	a := &Answer{Sync: true, Status: 200}
	if out != nil && out.Run != nil {
		o.RunID, a.RunID, a.Output = out.Run.ID, out.Run.ID, json.RawMessage(out.Run.Output)
		a.Status = statusOf(a.Output)
	}
	if err != nil {
		o.Status, o.Error = trigger.StatusFailed, err.Error()
	}
	if rerr := s.d.Store.Record(ctx, t.ID, o); rerr != nil {
		s.d.Log.Warn("could not record a trigger's run", "trigger", t.ID, "err", rerr)
	}
	if err != nil {
		s.pauseIfGone(ctx, t, err) // after the record: a paused trigger shows why
	}
	return a, err
}

// statusOf reads the status_code an output asks for (100-599); 200 else.
func statusOf(output json.RawMessage) int {
	var o struct {
		StatusCode int `json:"status_code"`
	}
	if json.Unmarshal(output, &o) == nil && o.StatusCode >= 100 && o.StatusCode <= 599 {
		return o.StatusCode
	}
	return 200
}

// allow counts a call against the trigger's rate limit; a limiter that
// fails lets the call through.
func (s *Service) allow(ctx context.Context, t *trigger.Trigger) error {
	if s.d.Limiter == nil {
		return nil
	}
	limit := t.RateLimit
	if limit == 0 {
		limit = DefaultRateLimit
	}
	ok, retry, err := s.d.Limiter.Allow(ctx, "trigger:"+strconv.FormatInt(t.ID, 10), limit, time.Minute)
	if err != nil {
		s.d.Log.Warn("trigger rate limiter failed; letting the call through", "trigger", t.ID, "err", err)
		return nil
	}
	if !ok {
		return errs.New(errs.ErrRateLimited, "trigger %d takes %d calls a minute; retry in %s", t.ID, limit, retry.Round(time.Second))
	}
	return nil
}
