package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// registerChat installs the chat routes: /v3/chat, the console's debug
// chat and the OpenAI-compatible endpoint.
func registerChat(coze, console *route.RouterGroup, d Deps) {
	h := chat.Handlers{Svc: d.Chat}
	coze.POST("/v3/chat", httpx.Handle(h.Create))
	coze.GET("/v3/chat/retrieve", httpx.Handle(h.Retrieve))
	coze.POST("/v3/chat/retrieve", httpx.Handle(h.Retrieve)) // @coze/api polls with POST
	coze.GET("/v3/chat/message/list", httpx.Handle(h.Messages))
	coze.POST("/v3/chat/cancel", httpx.Handle(h.Cancel))
	coze.POST("/v3/chat/submit_tool_outputs", httpx.Handle(h.SubmitToolOutputs))
	coze.POST("/v1/chat/completions", h.Completions)
	console.POST("/bots/:id/chat", httpx.Handle(h.Debug))
}
