package bot

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Callable returns the bots the caller may chat with over the API, as
// OpenAI's model list shows them: those of the given workspaces published
// to the API connector (1024), oldest first within a workspace. It needs
// the chat scope; workspaces the token or the membership does not reach
// are skipped, so the list never shows what ResolveForChat would refuse.
func (s *Service) Callable(ctx context.Context, p identity.Principal, workspaceIDs []int64) ([]bot.Bot, error) {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, err
	}
	var out []bot.Bot
	for _, ws := range workspaceIDs {
		if _, err := s.access.Authorize(ctx, p, ws, identity.RoleMember); err != nil {
			continue
		}
		list, err := s.callableIn(ctx, ws)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// callableIn lists the bots of one workspace published to the API.
func (s *Service) callableIn(ctx context.Context, ws int64) ([]bot.Bot, error) {
	list, _, err := s.store.ListBots(ctx, ws, bot.ListFilter{PublishedOnly: true}, identity.Page{})
	if err != nil {
		return nil, fmt.Errorf("list callable bots: %w", err)
	}
	var out []bot.Bot
	for i := len(list) - 1; i >= 0; i-- { // the store lists newest first
		n, err := s.store.PublishedTo(ctx, list[i].ID, ConnectorAPI)
		if err != nil {
			return nil, fmt.Errorf("list callable bots: %w", err)
		}
		if n > 0 {
			out = append(out, list[i])
		}
	}
	return out, nil
}
