package channels

import (
	"context"
	"net/http"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Inbound serves POST /channels/{kind}/{channel_id}, where platforms post
// their events; it needs no token: each kind's adapter verifies the
// platform's signature.
type Inbound struct {
	Runtime *channelapp.Runtime
}

// Receive hands the request to the channels' runtime and writes its
// reaction: 200 (or the adapter's status) at once, with the adapter's
// body or {"ok":true}.
func (h Inbound) Receive(ctx context.Context, c *app.RequestContext) error {
	if h.Runtime == nil {
		return errs.New(errs.ErrUnavailable, "this server does not take channel events")
	}
	id, err := httpx.PathID(c, "channel_id")
	if err != nil {
		return err
	}
	in := channelapp.Inbound{
		Header:   func(name string) string { return string(c.Request.Header.Peek(name)) },
		Body:     c.Request.Body(),
		Received: time.Now(),
	}
	re, err := h.Runtime.Receive(ctx, c.Param("kind"), id, in)
	if err != nil {
		return err
	}
	status := re.Status
	if status == 0 {
		status = http.StatusOK
	}
	if re.Body == nil {
		c.JSON(status, map[string]bool{"ok": true})
		return nil
	}
	ct := re.ContentType
	if ct == "" {
		ct = "application/json"
	}
	c.Data(status, ct, re.Body)
	return nil
}
