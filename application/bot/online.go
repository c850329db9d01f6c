package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// online is a bot with the version published to one connector, decoded
// once and shared read-only by every chat that runs it.
type online struct {
	bot     *bot.Bot
	version *bot.Version
}

// WithCache keeps the published version of each bot and connector, with
// its bot, in process (at most size of them), dropped through hub when the
// bot is published again, changed or deleted (or its workspace deleted).
func WithCache(hub *invalidation.Hub, size int) Option {
	return func(s *Service) {
		s.hub, s.online = hub, invalidation.NewCache[online](hub, size)
	}
}

// cachedOnline returns the bot and its version published to connector,
// from the cache when it can. Any failure (unknown bot, not published
// there) is returned for the caller to answer as the uncached path does.
func (s *Service) cachedOnline(ctx context.Context, botID int64, connector string) (online, error) {
	if s.online == nil {
		return online{}, errors.New("no cache")
	}
	return s.online.Get(strconv.FormatInt(botID, 10)+"/"+connector, func() (online, []string, error) {
		b, err := s.store.GetBot(ctx, botID)
		if err != nil {
			return online{}, nil, err
		}
		if !b.IsPublished() {
			return online{}, nil, errs.Invalid("bot_id", "bot %d is not published", botID)
		}
		v, err := s.versionFor(ctx, botID, connector)
		if err != nil {
			return online{}, nil, err
		}
		return online{bot: b, version: v}, []string{invalidation.Bot(botID), invalidation.Workspace(b.WorkspaceID)}, nil
	})
}

// resolveCached is ResolveForChat on a published version for a caller who
// may chat: the bot and version from the cache, then the caller's
// membership. ok is false when the caller must take the uncached path,
// which answers every failure.
func (s *Service) resolveCached(ctx context.Context, p identity.Principal, botID int64) (*bot.Bot, *bot.Config, int64, bool, error) {
	o, err := s.cachedOnline(ctx, botID, ConnectorAPI)
	if err != nil {
		return nil, nil, 0, false, nil
	}
	_, err = s.access.Authorize(ctx, p, o.bot.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return nil, nil, 0, true, botNotFound(botID)
	}
	if err != nil {
		return nil, nil, 0, true, fmt.Errorf("load bot %d: %w", botID, err)
	}
	return o.bot, &o.version.Config, o.version.Number, true, nil
}

// invalidate drops what is cached of a bot, in every process.
func (s *Service) invalidate(ctx context.Context, botID int64) {
	s.hub.Invalidate(ctx, invalidation.Bot(botID))
}
