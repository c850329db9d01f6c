package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Publish stores the current draft as the bot's next immutable version and
// makes it the one channels run. connectors names where it is published;
// none means the API (ConnectorAPI). The draft is checked again first, so a
// model removed since the last edit is caught here. It needs the bot scope
// and membership of the bot's workspace; an unreachable bot is
// errs.ErrNotFound, an unknown connector or a draft that no longer passes
// errs.ErrInvalid.
func (s *Service) Publish(ctx context.Context, p identity.Principal, botID int64, connectors []string) (*bot.Version, error) {
	connectors, err := s.checkConnectors(connectors)
	if err != nil {
		return nil, err
	}
	b, _, err := s.reach(ctx, p, botID, identity.ScopeBot)
	if err != nil {
		return nil, err
	}
	cfg := cloneConfig(b.Draft)
	if err := s.prepare(ctx, b.WorkspaceID, &cfg, true); err != nil {
		return nil, err
	}
	v := &bot.Version{BotID: botID, Config: cfg, Connectors: connectors, PublisherID: p.UserID}
	if err := s.store.PublishBot(ctx, b.WorkspaceID, v); err != nil {
		return nil, fmt.Errorf("publish bot %d: %w", botID, err)
	}
	return v, nil
}

// checkConnectors defaults, de-duplicates and checks connector ids.
func (s *Service) checkConnectors(ids []string) ([]string, error) {
	if len(ids) == 0 {
		return []string{ConnectorAPI}, nil
	}
	var out []string
	for _, id := range ids {
		if !slices.Contains(s.connectors, id) {
			return nil, errs.Invalid("connector_ids", "connector %q is not available; use %s", id, strings.Join(s.connectorNames(), " or "))
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

func (s *Service) connectorNames() []string {
	names := map[string]string{ConnectorAPI: " (API)", ConnectorChatSDK: " (Chat SDK)"}
	out := make([]string, len(s.connectors))
	for i, id := range s.connectors {
		out[i] = id + names[id]
	}
	return out
}
