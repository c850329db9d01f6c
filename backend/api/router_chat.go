package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// registerChat installs the chat routes: /v3/chat, the console's debug
// chat and the OpenAI-compatible endpoints (errors there are in OpenAI's
// shape: httpx.IsOpenAIPath).
func registerChat(coze, console *route.RouterGroup, d Deps) {
	h := chat.Handlers{Svc: d.Chat}
	coze.POST("/v3/chat", httpx.Handle(h.Create))
	coze.GET("/v3/chat/retrieve", httpx.Handle(h.Retrieve))
	coze.POST("/v3/chat/retrieve", httpx.Handle(h.Retrieve)) // @coze/api polls with POST
	coze.GET("/v3/chat/message/list", httpx.Handle(h.Messages))
	coze.POST("/v3/chat/cancel", httpx.Handle(h.Cancel))
	coze.POST("/v3/chat/submit_tool_outputs", httpx.Handle(h.SubmitToolOutputs))
	coze.POST("/v1/chat/completions", h.Completions)
	models := chat.Models{Bots: d.Bots, Workspaces: d.Identity}
	coze.GET("/v1/models", httpx.Handle(models.List))
	coze.GET("/v1/models/:model", httpx.Handle(models.Get))
	coze.POST("/v1/responses", httpx.Handle(h.Responses))
	coze.GET("/v1/responses/:id", httpx.Handle(h.Response))
	coze.POST("/v1/embeddings", httpx.Handle(chat.Embeddings{Embedder: d.Embeddings}.Create))
	console.POST("/bots/:id/chat", httpx.Handle(h.Debug))
}
