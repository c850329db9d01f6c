package api

import "github.com/cloudwego/hertz/pkg/route"

// registerTables installs the table and row routes (console and admin).
func registerTables(coze, console, admin *route.RouterGroup, d Deps) {}
