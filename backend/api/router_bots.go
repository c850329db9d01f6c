package api

import "github.com/cloudwego/hertz/pkg/route"

// registerBots installs the bot and variable routes.
func registerBots(coze, console *route.RouterGroup, d Deps) {}
