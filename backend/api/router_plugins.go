package api

import "github.com/cloudwego/hertz/pkg/route"

// registerPlugins installs the plugin routes (console and admin).
func registerPlugins(coze, console, admin *route.RouterGroup, d Deps) {}
