package bot

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// prepare normalizes and checks a configuration before it is saved or
// published: the domain rules, the bindings (plugins pinned to a version
// when publishing), the sub-agents, the icon, and the model, which defaults to the first
// enabled one that can serve the bot.
func (s *Service) prepare(ctx context.Context, workspaceID, botID int64, cfg *bot.Config, publish bool) error {
	cfg.Normalize()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := s.checkSubAgents(ctx, workspaceID, botID, cfg); err != nil {
		return err
	}
	if err := s.checkBindings(ctx, workspaceID, cfg, publish); err != nil {
		return err
	}
	if err := checkIcon(cfg.IconURL); err != nil {
		return err
	}
	return s.checkModel(ctx, cfg)
}

// checkBindings checks the plugins, workflows and tables a bot binds
// through their binders; a kind with no binder cannot be bound yet, and is
// refused rather than stored with nothing to run it.
func (s *Service) checkBindings(ctx context.Context, workspaceID int64, cfg *bot.Config, publish bool) error {
	switch {
	case len(cfg.Plugins) > 0 && s.plugins == nil:
		return errs.Invalid("plugins", "binding plugins is not available yet; remove them")
	case len(cfg.Workflows) > 0 && s.workflows == nil:
		return errs.Invalid("workflows", "binding workflows is not available yet; remove them")
	case len(cfg.Tables) > 0 && s.tables == nil:
		return errs.Invalid("tables", "binding tables is not available yet; remove them")
	case cfg.AppID != 0 && s.apps == nil:
		return errs.Invalid("app_id", "apps are not available yet; remove it")
	}
	if err := s.checkKnowledge(ctx, workspaceID, cfg.Knowledge); err != nil {
		return err
	}
	if cfg.AppID != 0 {
		if err := s.apps.BindApp(ctx, workspaceID, cfg.AppID); err != nil {
			return err
		}
	}
	if len(cfg.Plugins) > 0 {
		pinned, err := s.plugins.BindPlugins(ctx, workspaceID, cfg.Plugins, publish)
		if err != nil {
			return err
		}
		cfg.Plugins = pinned
	}
	if len(cfg.Workflows) > 0 {
		pinned, err := s.workflows.BindWorkflows(ctx, workspaceID, cfg.Workflows, publish)
		if err != nil {
			return err
		}
		cfg.Workflows = pinned
	}
	if len(cfg.Tables) > 0 {
		return s.tables.BindTables(ctx, workspaceID, cfg.Tables)
	}
	return nil
}

func checkIcon(icon string) error {
	if icon == "" {
		return nil
	}
	u, err := url.Parse(icon)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(icon) > 2000 {
		return errs.Invalid("icon_url", "must be an http(s) URL of at most 2000 characters")
	}
	return nil
}

// checkModel fills a missing model id with the default and checks that
// the model exists, is enabled and supports tools when the bot has some.
func (s *Service) checkModel(ctx context.Context, cfg *bot.Config) error {
	if cfg.Model.ModelID == "" {
		id, err := s.defaultModel(ctx, cfg.HasTools())
		if err != nil {
			return err
		}
		cfg.Model.ModelID = id
	}
	id := cfg.Model.ModelID
	m, err := s.models.Get(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return errs.Invalid("model.model_id", "model %q does not exist; GET /api/models lists the models", id)
	}
	if err != nil {
		return fmt.Errorf("check model %q: %w", id, err)
	}
	if !m.Enabled {
		return errs.Invalid("model.model_id", "model %q is disabled; pick another or ask an administrator to enable it", id)
	}
	if !m.IsChat() {
		return errs.Invalid("model.model_id", "model %q is of kind %q, not a chat model; GET /api/models lists the chat models", id, m.KindOrChat())
	}
	if cfg.HasTools() && !m.Capabilities.Tools {
		return errs.Invalid("model.model_id", "model %q does not support tools; bots with variables or client tools need a model with tool support", id)
	}
	return nil
}

// defaultModel returns the id of the first enabled chat model, by id; when the
// bot needs tools, the first enabled one with tool support, falling back
// to the first enabled one so the error names the missing capability.
func (s *Service) defaultModel(ctx context.Context, needsTools bool) (string, error) {
	models, err := s.models.List(ctx)
	if err != nil {
		return "", fmt.Errorf("default model: %w", err)
	}
	var first *llm.Model
	for i := range models {
		m := &models[i]
		if !m.Enabled || !m.IsChat() {
			continue
		}
		if !needsTools || m.Capabilities.Tools {
			return m.ID, nil
		}
		if first == nil {
			first = m
		}
	}
	if first != nil {
		return first.ID, nil
	}
	return "", errs.Invalid("model.model_id", "is required: no enabled model is configured; an administrator adds one with POST /api/admin/models")
}
