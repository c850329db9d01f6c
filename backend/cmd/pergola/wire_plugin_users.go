package main

import (
	"context"
	"fmt"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/identity"
)

// pluginUsers finds, in the bot store, the published bots a plugin's
// deletion would break: those whose version served on some connector (the
// newest version published there) binds the plugin.
type pluginUsers struct{ bots bot.Store }

// pluginUsersPage is how many bots one read of the store lists.
const pluginUsersPage = 200

// PublishedBotsUsing lists the published bots of the workspace that bind
// the plugin in a version they serve.
func (u pluginUsers) PublishedBotsUsing(ctx context.Context, workspaceID, pluginID int64) ([]pluginapp.BotRef, error) {
	var out []pluginapp.BotRef
	for page := 1; ; page++ {
		bots, total, err := u.bots.ListBots(ctx, workspaceID, bot.ListFilter{PublishedOnly: true}, identity.Page{Number: page, Size: pluginUsersPage})
		if err != nil {
			return nil, fmt.Errorf("list published bots: %w", err)
		}
		for _, b := range bots {
			uses, err := u.servedVersionBinds(ctx, b.ID, pluginID)
			if err != nil {
				return nil, err
			}
			if uses {
				out = append(out, pluginapp.BotRef{ID: b.ID, Name: b.Draft.Name})
			}
		}
		if len(bots) == 0 || int64(page*pluginUsersPage) >= total {
			return out, nil
		}
	}
}

// servedVersionBinds reports whether a version of the bot that some
// connector serves binds the plugin.
func (u pluginUsers) servedVersionBinds(ctx context.Context, botID, pluginID int64) (bool, error) {
	versions, err := u.bots.ListVersions(ctx, botID)
	if err != nil {
		return false, fmt.Errorf("list the versions of bot %d: %w", botID, err)
	}
	served := map[string]int64{} // connector -> newest version published there
	for _, v := range versions {
		for _, c := range v.Connectors {
			served[c] = max(served[c], v.Number)
		}
	}
	for _, v := range versions {
		if !servesSome(served, v.Number) {
			continue
		}
		for _, p := range v.Config.Plugins {
			if p.PluginID == pluginID {
				return true, nil
			}
		}
	}
	return false, nil
}

func servesSome(served map[string]int64, number int64) bool {
	for _, n := range served {
		if n == number {
			return true
		}
	}
	return false
}
