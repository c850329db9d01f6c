package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/conversations"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// registerConversations installs the conversation and message routes of
// the Coze-compatible API. The console has none of its own: builders use
// the same routes with a session.
func registerConversations(coze, console *route.RouterGroup, d Deps) {
	h := conversations.Handlers{Svc: d.Convs}
	coze.POST("/v1/conversation/create", httpx.Handle(h.Create))
	coze.GET("/v1/conversation/retrieve", httpx.Handle(h.Retrieve))
	coze.GET("/v1/conversations", httpx.Handle(h.List))
	coze.PUT("/v1/conversations/:conversation_id", httpx.Handle(h.Update))
	coze.DELETE("/v1/conversations/:conversation_id", httpx.Handle(h.Delete))
	coze.POST("/v1/conversations/:conversation_id/clear", httpx.Handle(h.Clear))

	coze.POST("/v1/conversation/message/create", httpx.Handle(h.CreateMessage))
	coze.POST("/v1/conversation/message/list", httpx.Handle(h.ListMessages))
	coze.GET("/v1/conversation/message/retrieve", httpx.Handle(h.RetrieveMessage))
	coze.POST("/v1/conversation/message/modify", httpx.Handle(h.ModifyMessage))
	coze.POST("/v1/conversation/message/delete", httpx.Handle(h.DeleteMessage))
	coze.POST("/v1/conversations/:conversation_id/messages/:message_id/feedback", httpx.Handle(h.CreateFeedback))
	coze.DELETE("/v1/conversations/:conversation_id/messages/:message_id/feedback", httpx.Handle(h.DeleteFeedback))
}
