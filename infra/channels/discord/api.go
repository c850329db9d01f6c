package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// maxResponse bounds what is read of one answer.
const maxResponse = 1 << 20

// api is Discord's HTTP API for one application's bot.
type api struct {
	client *http.Client
	base   string
	token  string
}

// apiError is the body of Discord's refusals.
type apiError struct {
	Message    string  `json:"message"`
	Code       int     `json:"code"`
	RetryAfter float64 `json:"retry_after"`
}

// call sends in (nil: no body) as JSON to path and decodes the answer
// into out (nil: ignored); with bot set it authenticates as the bot.
// Errors name the path with its interaction token hidden. Errors: errs.ErrUnauthenticated for a
// refused token, errs.ErrForbidden for a refused permission (and an
// egress refusal), errs.ErrNotFound for an unknown or expired
// interaction, errs.ErrInvalid for other refusals; 429, 5xx and
// transport failures come wrapped in *delivery.Retryable.
func (a api) call(ctx context.Context, method, path string, bot bool, in, out any) error {
	label := method + " " + redact(path)
	req, err := a.request(ctx, method, path, in)
	if err != nil {
		return err
	}
	if bot {
		req.Header.Set("Authorization", "Bot "+a.token)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return delivery.TransportError("discord", label, err)
	}
	defer resp.Body.Close()
	return decode(label, resp, out)
}

func (a api) request(ctx context.Context, method, path string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("discord %s: %w", method, err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(a.base, "/")+path, body)
	if err != nil {
		return nil, errs.Invalid("settings.api_base_url", "is not usable: %v", delivery.StripURL(err))
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "DiscordBot (https://github.com/pergola-ai/pergola, 1)")
	return req, nil
}

// redact hides the interaction token of a webhook path.
func redact(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) > 3 && parts[1] == "webhooks" {
		parts[3] = "…"
	}
	return strings.Join(parts, "/")
}

// decode reads one answer.
func decode(label string, resp *http.Response, out any) error {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return &delivery.Retryable{Err: errs.New(errs.ErrUnavailable, "discord %s: reading the answer: %v", label, delivery.StripURL(err))}
	}
	if resp.StatusCode/100 == 2 {
		if out == nil || len(raw) == 0 {
			return nil
		}
		return json.Unmarshal(raw, out)
	}
	var e apiError
	if json.Unmarshal(raw, &e) != nil || e.Message == "" {
		e.Message = resp.Status
	}
	return refusal(label, resp, e)
}

// refusal turns a Discord error into Pergola's vocabulary.
func refusal(label string, resp *http.Response, e apiError) error {
	msg := fmt.Sprintf("discord %s: %s", label, errs.Excerpt(e.Message, errs.MaxExcerpt))
	if e.Code != 0 {
		msg += fmt.Sprintf(" (code %d)", e.Code)
	}
	switch s := resp.StatusCode; {
	case s == http.StatusUnauthorized:
		return errs.Unauthenticated("%s (the token was refused)", msg)
	case s == http.StatusForbidden:
		return errs.Forbidden("%s", msg)
	case s == http.StatusNotFound:
		return errs.New(errs.ErrNotFound, "%s", msg)
	case s == http.StatusTooManyRequests:
		return &delivery.Retryable{Err: errs.New(errs.ErrRateLimited, "%s", msg), After: retryAfter(resp, e)}
	case s >= 500:
		return &delivery.Retryable{Err: errs.New(errs.ErrUnavailable, "%s", msg)}
	}
	return errs.New(errs.ErrInvalid, "%s", msg)
}

// retryAfter is the wait Discord asks for: the Retry-After header or the
// body's retry_after, in (fractional) seconds, rounded up to milliseconds.
func retryAfter(resp *http.Response, e apiError) time.Duration {
	secs := e.RetryAfter
	if h, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); err == nil && h > secs {
		secs = h
	}
	return time.Duration(math.Ceil(secs*1000)) * time.Millisecond
}
