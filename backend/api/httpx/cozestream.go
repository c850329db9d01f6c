package httpx

import (
	"encoding/json"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"
)

// The Coze routes that always answer with a stream, and those that do when
// the body says "stream": true.
var (
	cozeStreamPaths      = map[string]bool{"/v1/workflow/stream_run": true, "/v1/workflow/stream_resume": true, "/v1/workflows/chat": true}
	cozeMaybeStreamPaths = map[string]bool{"/v3/chat": true, "/v3/chat/submit_tool_outputs": true}
)

// cozeClientHeader is sent by Coze's SDKs (JS, Go, Python) on every call.
const cozeClientHeader = "X-Coze-Client-User-Agent"

// maxPeekBytes bounds the body read to learn whether a call streams.
const maxPeekBytes = 1 << 20

// cozeStatus is the HTTP status a failure is sent with. A streamed call of
// a Coze SDK gets 200, as Coze answers: @coze/api reads a streaming answer
// with axios, which throws on any other status before the SDK sees the
// body, so the user would get neither code nor msg; with 200 and a JSON
// body the SDK throws an APIError carrying both (and its class follows the
// code). Every other caller gets the real status.
func cozeStatus(c *app.RequestContext, status int) int {
	if status != http.StatusOK && cozeSDKStream(c) {
		return http.StatusOK
	}
	return status
}

// cozeSDKStream reports whether c is a Coze SDK's call of a streaming route.
func cozeSDKStream(c *app.RequestContext) bool {
	if len(c.GetHeader(cozeClientHeader)) == 0 {
		return false
	}
	path := string(c.Path())
	if cozeStreamPaths[path] {
		return true
	}
	if !cozeMaybeStreamPaths[path] {
		return false
	}
	body := c.Request.Body()
	var v struct {
		Stream bool `json:"stream"`
	}
	return len(body) <= maxPeekBytes && json.Unmarshal(body, &v) == nil && v.Stream
}
