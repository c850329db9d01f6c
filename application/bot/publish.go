package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Publish stores the current draft as the bot's next immutable version and
// makes it the one each named connector serves. connectors names where it
// is published: ConnectorAPI, ConnectorChatSDK or ids of the bot's
// channels; none means the API (ConnectorAPI). The draft is checked again
// first, so a model removed since the last edit is caught here. It needs
// the bot scope and membership of the bot's workspace; an unreachable bot
// is errs.ErrNotFound; an unknown connector, a channel of another bot or a
// disabled one, or a draft that no longer passes is errs.ErrInvalid.
func (s *Service) Publish(ctx context.Context, p identity.Principal, botID int64, connectors []string) (*bot.Version, error) {
	connectors, channelIDs, err := s.splitConnectors(connectors)
	if err != nil {
		return nil, err
	}
	b, _, err := s.reach(ctx, p, botID, identity.ScopeBot)
	if err != nil {
		return nil, err
	}
	if err := s.checkChannels(ctx, botID, channelIDs); err != nil {
		return nil, err
	}
	cfg := cloneConfig(b.Draft)
	if err := s.prepare(ctx, b.WorkspaceID, botID, &cfg, true); err != nil {
		return nil, err
	}
	if err := s.checkHandoffs(ctx, b.WorkspaceID, botID, &cfg); err != nil {
		return nil, err
	}
	v := &bot.Version{BotID: botID, Config: cfg, Connectors: connectors, PublisherID: p.UserID}
	if err := s.store.PublishBot(ctx, b.WorkspaceID, v); err != nil {
		return nil, fmt.Errorf("publish bot %d: %w", botID, err)
	}
	s.invalidate(ctx, botID)
	return v, nil
}

// splitConnectors defaults and de-duplicates connector ids and returns
// those that are not fixed connectors apart, to be checked as channel ids
// once the bot is reached. Without channels they are refused at once.
func (s *Service) splitConnectors(ids []string) (all, channelIDs []string, err error) {
	if len(ids) == 0 {
		return []string{ConnectorAPI}, nil, nil
	}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if slices.Contains(all, id) {
			continue
		}
		if !slices.Contains(s.connectors, id) {
			if s.channels == nil {
				return nil, nil, errs.Invalid("connector_ids", "connector %q is not available; use %s", id, strings.Join(s.connectorNames(), " or "))
			}
			channelIDs = append(channelIDs, id)
		}
		all = append(all, id)
	}
	return all, channelIDs, nil
}

// checkChannels accepts ids of the bot's channels that are not disabled.
func (s *Service) checkChannels(ctx context.Context, botID int64, ids []string) error {
	for _, id := range ids {
		if err := s.checkChannel(ctx, botID, id); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) checkChannel(ctx context.Context, botID int64, id string) error {
	unknown := errs.Invalid("connector_ids", "connector %q is not available; use %s or the id of one of bot %d's channels",
		id, strings.Join(s.connectorNames(), ", "), botID)
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return unknown
	}
	c, err := s.channels.GetChannel(ctx, n)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && c.BotID != botID && !s.handsOffTo(ctx, c.BotID, botID)) {
		return unknown
	}
	if err != nil {
		return fmt.Errorf("publish bot %d: channel %s: %w", botID, id, err)
	}
	if !c.Serves() {
		return errs.Invalid("connector_ids", "channel %s is disabled; enable it (PATCH its status to active) before publishing to it", id)
	}
	return nil
}

func (s *Service) connectorNames() []string {
	names := map[string]string{ConnectorAPI: " (API)", ConnectorChatSDK: " (Chat SDK)"}
	out := make([]string, len(s.connectors))
	for i, id := range s.connectors {
		out[i] = id + names[id]
	}
	return out
}
