package bot

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

// ResolveForChat returns the bot a chat runs and the configuration to run.
// With draft false it is the latest published version and its number; a
// bot never published fails with errs.ErrInvalid on bot_id. With draft
// true it is the draft and version 0 (key a compiled draft by the bot's
// DraftRevision). It needs the chat scope and membership of the bot's
// workspace; an unreachable bot is errs.ErrNotFound. The bot and
// configuration returned are shared (a published version is decoded once
// and cached): they must not be modified.
func (s *Service) ResolveForChat(ctx context.Context, p identity.Principal, botID int64, draft bool) (*bot.Bot, *bot.Config, int64, error) {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, nil, 0, err
	}
	if !draft {
		if b, cfg, n, ok, err := s.resolveCached(ctx, p, botID); ok {
			return b, cfg, n, err
		}
	}
	b, _, err := s.reach(ctx, p, botID, identity.ScopeChat)
	if err != nil {
		return nil, nil, 0, err
	}
	if draft {
		return b, &b.Draft, 0, nil
	}
	if !b.IsPublished() {
		return nil, nil, 0, errs.Invalid("bot_id", "bot %d is not published; publish it first", botID)
	}
	v, err := s.versionFor(ctx, botID, ConnectorAPI)
	if err != nil {
		return nil, nil, 0, err
	}
	return b, &v.Config, v.Number, nil
}

// ResolvePublished returns the bot and the version last published to a
// connector (a channel id, or ConnectorChatSDK), for the channel runtime,
// which authenticates its callers itself: it checks no access. A bot not
// published there fails with errs.ErrForbidden saying so. The bot and
// version returned must not be modified.
func (s *Service) ResolvePublished(ctx context.Context, botID int64, connector string) (*bot.Bot, *bot.Version, error) {
	if o, err := s.cachedOnline(ctx, botID, connector); err == nil {
		return o.bot, o.version, nil
	}
	b, err := s.store.GetBot(ctx, botID)
	if err != nil {
		return nil, nil, fmt.Errorf("resolve bot %d: %w", botID, err)
	}
	v, err := s.versionFor(ctx, botID, connector)
	return b, v, err
}

// versionFor loads the version last published to a connector.
func (s *Service) versionFor(ctx context.Context, botID int64, connector string) (*bot.Version, error) {
	n, err := s.store.PublishedTo(ctx, botID, connector)
	if err != nil {
		return nil, fmt.Errorf("resolve bot %d: %w", botID, err)
	}
	if n == 0 {
		return nil, errs.Forbidden("bot %d is not published to the corresponding channel (%s); publish it with connector_ids including %q",
			botID, connectorLabel(connector), connector)
	}
	v, err := s.store.GetVersion(ctx, botID, n)
	if err != nil {
		return nil, fmt.Errorf("resolve bot %d: %w", botID, err)
	}
	return v, nil
}

// connectorLabel names a connector for messages.
func connectorLabel(id string) string {
	switch id {
	case ConnectorAPI:
		return "the API, connector 1024"
	case ConnectorChatSDK:
		return "the Chat SDK, connector 999"
	}
	return "channel " + id
}

// VariableValues returns every defined keyword with its value for the
// scope: the stored value, or the default. It checks no access: the chat
// runtime calls it for a bot it already resolved. An empty connector means
// ConnectorAPI.
func (s *Service) VariableValues(ctx context.Context, sc variable.Scope, defs []variable.Definition) (map[string]string, error) {
	if len(defs) == 0 {
		return map[string]string{}, nil
	}
	sc.ConnectorID = connectorOrAPI(sc.ConnectorID)
	stored, err := s.vars.GetValues(ctx, sc, nil)
	if err != nil {
		return nil, fmt.Errorf("variable values of bot %d: %w", sc.BotID, err)
	}
	return variable.Resolve(defs, stored), nil
}

// SetVariables stores the updates the definitions allow and reports the
// keywords it refused (undefined, or a value that is too long), for the
// setKeywordMemory tool. It checks no access, like VariableValues.
func (s *Service) SetVariables(ctx context.Context, sc variable.Scope, defs []variable.Definition, kvs []variable.KV) ([]variable.KV, []string, error) {
	accepted, refused := variable.Accept(defs, kvs)
	if len(accepted) == 0 {
		return nil, refused, nil
	}
	sc.ConnectorID = connectorOrAPI(sc.ConnectorID)
	if err := s.vars.SetValues(ctx, sc, accepted); err != nil {
		return nil, nil, fmt.Errorf("set variables of bot %d: %w", sc.BotID, err)
	}
	return accepted, refused, nil
}
