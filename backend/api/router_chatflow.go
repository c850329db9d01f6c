package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/chatflow"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// registerChatflow installs /v1/workflows/chat: a workflow run as a
// conversation turn.
func registerChatflow(coze, console, admin *route.RouterGroup, d Deps) {
	h := chatflow.Handlers{Workflows: d.Workflows, Convs: d.Convs, Log: d.Log}
	coze.POST("/v1/workflows/chat", httpx.Handle(h.Chat))
}
