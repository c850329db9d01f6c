package httpx

import (
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"
)

// CodeNotSupported is the envelope code of a Coze API that Pergola does
// not offer (voice, the template store): Coze has no code of its own for
// it, so it follows the HTTP status, 501, as 5030 follows 503.
const CodeNotSupported = 5010

// OpenAINotSupported is the OpenAI error code of the same answer.
const OpenAINotSupported = "unsupported_endpoint"

// NotSupported answers a route Pergola knows of but does not offer with
// 501 and msg, in one body that both Coze's SDKs (code, msg) and OpenAI's
// (error) read, since some paths (/v1/audio/speech) are both theirs.
// x-should-retry: false keeps OpenAI's SDKs from retrying the 5xx.
func NotSupported(c *app.RequestContext, msg string) {
	code := OpenAINotSupported
	c.Header("x-should-retry", "false")
	c.Header("X-Request-Id", LogID(c))
	c.AbortWithStatusJSON(http.StatusNotImplemented, map[string]any{
		"code": CodeNotSupported, "msg": msg, "detail": Detail{LogID: LogID(c)},
		"error": OpenAIError{Message: msg, Type: "invalid_request_error", Code: &code},
	})
}
