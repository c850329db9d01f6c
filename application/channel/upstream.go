package channel

import (
	"context"
	"strings"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// cleanPlatform wraps a kind's Platform so that what the platform said
// reaches API errors and logs as a short excerpt that never holds the
// channel's secrets: a platform (or a server set as api_base_url) may
// answer a credential check with a page of text, or echo the token it
// refused.
type cleanPlatform struct{ Platform }

// CheckCredentials is the platform's, with its error cleaned.
func (p cleanPlatform) CheckCredentials(ctx context.Context, c *channel.Channel) error {
	return upstreamError(p.Platform.CheckCredentials(ctx, c), c)
}

// RegisterWebhook is the platform's, with its error cleaned.
func (p cleanPlatform) RegisterWebhook(ctx context.Context, c *channel.Channel, webhookURL string) error {
	return upstreamError(p.Platform.RegisterWebhook(ctx, c, webhookURL), c)
}

// maxUpstreamError bounds the text of an error that quotes a platform.
const maxUpstreamError = 2 * errs.MaxExcerpt

// upstreamError returns err with every secret setting of c masked and
// cut to maxUpstreamError characters; its kind (errors.Is, errors.As) is
// kept. nil stays nil.
func upstreamError(err error, c *channel.Channel) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	spec, _ := channel.SpecOf(c.Kind)
	for _, f := range spec.Fields {
		if v, ok := c.Settings[f.Name].(string); ok && f.Secret && len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "[the channel's "+f.Name+"]")
		}
	}
	msg = errs.Excerpt(msg, maxUpstreamError)
	if msg == err.Error() {
		return err
	}
	return &cleanedError{err: err, msg: msg}
}

// cleanedError is an error shown with other text.
type cleanedError struct {
	err error
	msg string
}

func (e *cleanedError) Error() string { return e.msg }
func (e *cleanedError) Unwrap() error { return e.err }
