package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/bots"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// registerBots installs the bot and variable routes: Coze's on coze, the
// builders' resource routes on console (/api).
func registerBots(coze, console *route.RouterGroup, d Deps) {
	cz := bots.Coze{Svc: d.Bots}
	if d.Knowledge != nil {
		cz.Knowledge = d.Knowledge
	}
	if d.Workflows != nil {
		cz.Workflows = d.Workflows
	}
	if d.Models != nil {
		cz.Models = d.Models
	}
	if d.Plugins != nil {
		cz.Plugins = d.Plugins
	}
	coze.POST("/v1/bot/create", httpx.Handle(cz.Create))
	coze.POST("/v1/bot/update", httpx.Handle(cz.Update))
	coze.POST("/v1/bot/publish", httpx.Handle(cz.Publish))
	coze.GET("/v1/bot/get_online_info", httpx.Handle(cz.OnlineInfo))
	coze.GET("/v1/bots/:bot_id", httpx.Handle(cz.Retrieve))
	coze.GET("/v1/bots", httpx.Handle(cz.List))
	coze.GET("/v1/space/published_bots_list", httpx.Handle(cz.PublishedList))
	coze.GET("/v1/variables", httpx.Handle(cz.Variables))
	coze.PUT("/v1/variables", httpx.Handle(cz.SetVariables))

	cs := bots.Console{Svc: d.Bots}
	console.GET("/bots", httpx.Handle(cs.List))
	console.POST("/bots", httpx.Handle(cs.Create))
	console.GET("/bots/:id", httpx.Handle(cs.Get))
	console.PUT("/bots/:id", httpx.Handle(cs.Replace))
	console.DELETE("/bots/:id", httpx.Handle(cs.Delete))
	console.POST("/bots/:id/publish", httpx.Handle(cs.Publish))
	console.GET("/bots/:id/versions", httpx.Handle(cs.Versions))
	console.GET("/bots/:id/versions/:version", httpx.Handle(cs.Version))
	console.GET("/bots/:id/variables", httpx.Handle(cs.Variables))
	console.PUT("/bots/:id/variables", httpx.Handle(cs.SetVariables))
	console.DELETE("/bots/:id/variables", httpx.Handle(cs.ResetVariables))
	console.GET("/bots/:id/feedback", httpx.Handle(bots.Feedback{Svc: d.Convs}.List))
}
