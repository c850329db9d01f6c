package plugin

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// BindPlugins checks the plugin tools a bot of a workspace binds: each
// plugin must be the workspace's own or a built-in, enabled, and have the
// tool, enabled, at the version named (the draft when none is named and
// the bot is not being published); no two bound tools may share a name,
// since the model calls them by name. When publish is true an empty
// version is pinned to the plugin's latest published version, and an
// unpublished plugin is refused. Errors match errs.ErrInvalid and name
// the field, e.g. "plugins[1].tool".
func (s *Service) BindPlugins(ctx context.Context, workspaceID int64, tools []bot.PluginTool, publish bool) ([]bot.PluginTool, error) {
	out := make([]bot.PluginTool, len(tools))
	seen := map[string]int{}
	loaded := map[int64]*plugin.Plugin{}
	for i, t := range tools {
		at := "plugins[" + strconv.Itoa(i) + "]"
		pl, err := s.bindable(ctx, loaded, workspaceID, t.PluginID, at)
		if err != nil {
			return nil, err
		}
		version, err := plugin.ParseVersion(at+".version", t.Version)
		if err != nil {
			return nil, err
		}
		if version == 0 && publish {
			if !pl.IsPublished() {
				return nil, errs.Invalid(at+".plugin_id", "plugin %d (%s) is not published; publish it first (POST /api/plugins/%d/publish)", pl.ID, pl.Name, pl.ID)
			}
			version = pl.PublishedVersion
		}
		if err := s.checkTool(ctx, pl, version, t.Tool, at); err != nil {
			return nil, err
		}
		if t.Tool == bot.KeywordMemoryTool {
			return nil, errs.Invalid(at+".tool", "%q is the name of the bot's memory tool; a plugin tool cannot take it", t.Tool)
		}
		if j, dup := seen[t.Tool]; dup {
			return nil, errs.Invalid(at+".tool", "plugins[%d] already binds a tool named %q; a bot's tools need distinct names", j, t.Tool)
		}
		seen[t.Tool] = i
		out[i] = bot.PluginTool{PluginID: t.PluginID, Tool: t.Tool, Version: versionLabel(version)}
	}
	return out, nil
}

// bindable loads a plugin a workspace may bind, once per plugin.
func (s *Service) bindable(ctx context.Context, loaded map[int64]*plugin.Plugin, workspaceID, id int64, at string) (*plugin.Plugin, error) {
	if pl, ok := loaded[id]; ok {
		return pl, nil
	}
	pl, err := s.d.Store.GetPlugin(ctx, id)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && !pl.VisibleTo(workspaceID)) {
		return nil, errs.Invalid(at+".plugin_id", "plugin %d does not exist in this workspace or the catalog", id)
	}
	if err != nil {
		return nil, fmt.Errorf("bind plugins: %w", err)
	}
	if err := pl.Usable(""); err != nil {
		return nil, errs.Invalid(at+".plugin_id", "%v", err)
	}
	loaded[id] = pl
	return pl, nil
}

// checkTool checks that a version of a plugin has an enabled tool.
func (s *Service) checkTool(ctx context.Context, pl *plugin.Plugin, version int64, tool, at string) error {
	spec := &pl.Draft
	if version > 0 {
		v, err := s.d.Store.GetVersion(ctx, pl.ID, version)
		if errors.Is(err, errs.ErrNotFound) {
			return errs.Invalid(at+".version", "plugin %d has no version %d; its latest is %d", pl.ID, version, pl.PublishedVersion)
		}
		if err != nil {
			return fmt.Errorf("bind plugins: %w", err)
		}
		spec = &v.Spec
	}
	if _, ok := spec.Tool(tool); !ok {
		in := "its draft"
		if version > 0 {
			in = "version " + strconv.FormatInt(version, 10)
		}
		return errs.Invalid(at+".tool", "plugin %d (%s) has no tool %q in %s; its tools are %s", pl.ID, pl.Name, tool, in, strings.Join(spec.ToolNames(), ", "))
	}
	if err := pl.Usable(tool); err != nil {
		return errs.Invalid(at+".tool", "%v", err)
	}
	return nil
}

func versionLabel(v int64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}
