package api

import "github.com/cloudwego/hertz/pkg/route"

// registerConversations installs the conversation and message routes.
func registerConversations(coze, console *route.RouterGroup, d Deps) {}
