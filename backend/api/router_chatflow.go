package api

import "github.com/cloudwego/hertz/pkg/route"

// registerChatflow installs /v1/workflows/chat: a workflow run as a
// conversation turn.
func registerChatflow(coze, console, admin *route.RouterGroup, d Deps) {}
