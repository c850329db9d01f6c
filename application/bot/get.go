package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Get returns a bot with its draft. It needs the bot scope and membership
// of the bot's workspace; an unreachable bot is errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, p identity.Principal, botID int64) (*bot.Bot, error) {
	b, _, err := s.reach(ctx, p, botID, identity.ScopeBot)
	return b, err
}

// Access returns a bot with the caller's membership of its workspace, for
// the use cases of what belongs to a bot (its channels); access as for
// Get.
func (s *Service) Access(ctx context.Context, p identity.Principal, botID int64) (*bot.Bot, *identity.Member, error) {
	return s.reach(ctx, p, botID, identity.ScopeBot)
}

// Online returns a bot with its latest published version. A bot never
// published fails with errs.ErrNotFound saying so; access as for Get.
func (s *Service) Online(ctx context.Context, p identity.Principal, botID int64) (*bot.Bot, *bot.Version, error) {
	b, _, err := s.reach(ctx, p, botID, identity.ScopeBot)
	if err != nil {
		return nil, nil, err
	}
	if !b.IsPublished() {
		return nil, nil, errs.New(errs.ErrNotFound, "bot %d is not published; publish it first", botID)
	}
	v, err := s.store.GetVersion(ctx, botID, b.PublishedVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("online version of bot %d: %w", botID, err)
	}
	return b, v, nil
}

// GetVersion returns one published version of a bot, or errs.ErrNotFound;
// access as for Get.
func (s *Service) GetVersion(ctx context.Context, p identity.Principal, botID, number int64) (*bot.Version, error) {
	if _, _, err := s.reach(ctx, p, botID, identity.ScopeBot); err != nil {
		return nil, err
	}
	v, err := s.store.GetVersion(ctx, botID, number)
	if err != nil && !errors.Is(err, errs.ErrNotFound) {
		return nil, fmt.Errorf("get version %d of bot %d: %w", number, botID, err)
	}
	return v, err
}

// ListVersions returns every published version of a bot, newest first;
// access as for Get.
func (s *Service) ListVersions(ctx context.Context, p identity.Principal, botID int64) ([]bot.Version, error) {
	if _, _, err := s.reach(ctx, p, botID, identity.ScopeBot); err != nil {
		return nil, err
	}
	vs, err := s.store.ListVersions(ctx, botID)
	if err != nil {
		return nil, fmt.Errorf("list versions of bot %d: %w", botID, err)
	}
	return vs, nil
}
