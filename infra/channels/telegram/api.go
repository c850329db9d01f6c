package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// maxResponse bounds what is read of one Bot API answer.
const maxResponse = 1 << 20

// api is the Bot API of one bot: POST {base}/bot{token}/{method}.
type api struct {
	client *http.Client
	base   string
	token  string
}

// response is the envelope of every Bot API answer.
type response struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// call posts in as JSON to method and decodes the result into out (nil:
// ignored). Errors: errs.ErrUnauthenticated for a refused token,
// errs.ErrForbidden for a chat that refuses the bot (and an egress
// refusal), errs.ErrInvalid for other refusals; 429, 5xx and transport
// failures come wrapped in *delivery.Retryable. Messages quote Telegram's
// description and never the token.
func (a api) call(ctx context.Context, method string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("telegram %s: %w", method, err)
	}
	endpoint := strings.TrimRight(a.base, "/") + "/bot" + a.token + "/" + method
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return errs.Invalid("settings.api_base_url", "is not usable: %v", delivery.StripURL(err))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return delivery.TransportError("telegram", method, err)
	}
	defer resp.Body.Close()
	return decode(method, resp, out)
}

// decode reads one answer.
func decode(method string, resp *http.Response, out any) error {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return &delivery.Retryable{Err: errs.New(errs.ErrUnavailable, "telegram %s: reading the answer: %v", method, delivery.StripURL(err))}
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		r = response{ErrorCode: resp.StatusCode, Description: resp.Status}
	}
	if r.OK && resp.StatusCode == http.StatusOK {
		if out == nil {
			return nil
		}
		return json.Unmarshal(r.Result, out)
	}
	if r.ErrorCode == 0 {
		r.ErrorCode = resp.StatusCode
	}
	return refusal(method, r)
}

// refusal turns a Bot API error into Pergola's vocabulary.
func refusal(method string, r response) error {
	msg := fmt.Sprintf("telegram %s: %s", method, errs.Excerpt(r.Description, errs.MaxExcerpt))
	switch {
	case r.ErrorCode == http.StatusUnauthorized || r.ErrorCode == http.StatusNotFound:
		return errs.Unauthenticated("%s (the bot token was refused)", msg)
	case r.ErrorCode == http.StatusForbidden:
		return errs.Forbidden("%s", msg)
	case r.ErrorCode == http.StatusTooManyRequests:
		after := 0
		if r.Parameters != nil {
			after = r.Parameters.RetryAfter
		}
		return &delivery.Retryable{Err: errs.New(errs.ErrRateLimited, "%s", msg), After: time.Duration(after) * time.Second}
	case r.ErrorCode >= 500:
		return &delivery.Retryable{Err: errs.New(errs.ErrUnavailable, "%s", msg)}
	}
	return errs.New(errs.ErrInvalid, "%s", msg)
}
