package bots

import (
	"context"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// PluginReader reads a plugin for a caller; *plugin.Service (application)
// implements it.
type PluginReader interface {
	Get(ctx context.Context, p identity.Principal, id int64) (*plugin.Plugin, error)
}

// cozePluginOut is a bound plugin as Coze's bot object lists it: the
// plugin and the tools (APIs) of it the bot uses.
type cozePluginOut struct {
	PluginID    httpx.ID      `json:"plugin_id"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	IconURL     string        `json:"icon_url"`
	APIInfoList []cozeAPIInfo `json:"api_info_list"`
}

type cozeAPIInfo struct {
	APIID       string `json:"api_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// pluginInfos groups the bound tools by plugin, in binding order, named
// and described as the plugin's draft says. A plugin the caller may not
// read (its token lacks the plugin scope) or that was deleted since is
// listed by id and tool names alone: the bot still binds it.
func (h Coze) pluginInfos(ctx context.Context, p identity.Principal, tools []bot.PluginTool) []cozePluginOut {
	out := cozePlugins(tools)
	if h.Plugins == nil {
		return out
	}
	for i := range out {
		pl, err := h.Plugins.Get(ctx, p, int64(out[i].PluginID))
		if err != nil {
			continue
		}
		out[i].Name, out[i].Description = pl.Name, pl.Description
		for j, api := range out[i].APIInfoList {
			if t, ok := pl.Draft.Tool(api.Name); ok {
				out[i].APIInfoList[j].Description = t.Description
			}
		}
	}
	return out
}

// cozePlugins groups the bound tools by plugin, in binding order.
func cozePlugins(tools []bot.PluginTool) []cozePluginOut {
	out := []cozePluginOut{}
	at := map[int64]int{}
	for _, t := range tools {
		i, ok := at[t.PluginID]
		if !ok {
			i = len(out)
			at[t.PluginID] = i
			out = append(out, cozePluginOut{PluginID: httpx.ID(t.PluginID), APIInfoList: []cozeAPIInfo{}})
		}
		out[i].APIInfoList = append(out[i].APIInfoList, cozeAPIInfo{APIID: t.Tool, Name: t.Tool})
	}
	return out
}
