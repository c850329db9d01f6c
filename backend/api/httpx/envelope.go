package httpx

import (
	"context"
	"log/slog"

	"github.com/cloudwego/hertz/pkg/app"
)

// Envelope is the body of every JSON response: {"code","msg","data"}.
// Failures also carry {"detail":{"logid"}}, as Coze does.
type Envelope struct {
	Code   int     `json:"code"`
	Msg    string  `json:"msg"`
	Data   any     `json:"data,omitempty"`
	Detail *Detail `json:"detail,omitempty"`
}

// Detail carries the log id of a failed request.
type Detail struct {
	LogID string `json:"logid"`
}

// Handler is a handler that returns its error; Handle renders it.
type Handler func(ctx context.Context, c *app.RequestContext) error

// Handle adapts a Handler to hertz, rendering a returned error as an
// envelope with its real HTTP status.
func Handle(h Handler) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		if err := h(ctx, c); err != nil {
			Fail(ctx, c, err)
		}
	}
}

// OK writes {"code":0,"msg":"","data":data} with status 200. A nil data is
// sent as {} because Coze SDKs expect an object.
func OK(c *app.RequestContext, data any) {
	if data == nil {
		data = struct{}{}
	}
	c.JSON(200, Envelope{Code: CodeOK, Data: data})
}

// Raw writes a 200 JSON body as given, for the Coze endpoints whose fields
// sit beside "code" rather than under "data".
func Raw(c *app.RequestContext, body any) { c.JSON(200, body) }

// Fail writes err as an envelope with its HTTP status (OpenAI's error
// shape on the OpenAI routes; status 200 on a Coze SDK's streamed call, see
// cozeStatus). Only server-side failures are logged; the caller gets a
// message it can act on.
func Fail(ctx context.Context, c *app.RequestContext, err error) {
	status, code, msg := Classify(err)
	if status >= 500 {
		slog.ErrorContext(ctx, "request failed", "logid", LogID(c), "path", string(c.Path()), "err", err)
	}
	if IsOpenAIPath(string(c.Path())) {
		FailOpenAI(c, err)
		return
	}
	c.Set(errorKey, err)
	setRetryAfter(c, status)
	c.JSON(cozeStatus(c, status), Envelope{Code: code, Msg: msg, Detail: &Detail{LogID: LogID(c)}})
}

// FailWith writes an envelope with an explicit status and code, for errors
// raised by the HTTP layer itself (e.g. a body that is too large), in the
// same shapes as Fail.
func FailWith(c *app.RequestContext, status, code int, msg string) {
	if IsOpenAIPath(string(c.Path())) {
		FailOpenAIWith(c, status, msg)
		return
	}
	c.AbortWithStatusJSON(cozeStatus(c, status), Envelope{Code: code, Msg: msg, Detail: &Detail{LogID: LogID(c)}})
}

const (
	errorKey     = "pergola.error"
	logIDKey     = "pergola.logid"
	principalKey = "pergola.principal"
)

// SetLogID stores the request's log id.
func SetLogID(c *app.RequestContext, id string) { c.Set(logIDKey, id) }

// LogID returns the request's log id.
func LogID(c *app.RequestContext) string { return c.GetString(logIDKey) }

// List wraps a list answer: {"items":[...],"total":N}.
type List[T any] struct {
	Items []T   `json:"items"`
	Total int64 `json:"total"`
}
