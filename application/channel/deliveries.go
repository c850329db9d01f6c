package channel

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// MaxDeliveriesPage bounds one page of deliveries.
const MaxDeliveriesPage = 100

// WithEvents sets the store of inbound events, for the deliveries and
// admin views.
func WithEvents(e channel.EventStore) Option { return func(s *Service) { s.events = e } }

// Deliveries returns one page of a channel's events, newest first: those
// with ids below before (0: from the newest), at most limit (1 to
// MaxDeliveriesPage, 0 means 20), and whether more follow. Access is as
// for Get.
func (s *Service) Deliveries(ctx context.Context, p identity.Principal, botID, id, before int64, limit int) ([]channel.Delivery, bool, error) {
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > MaxDeliveriesPage {
		return nil, false, errs.Invalid("limit", "must be 1 to %d", MaxDeliveriesPage)
	}
	if _, err := s.Get(ctx, p, botID, id); err != nil {
		return nil, false, err
	}
	list, err := s.events.ListEvents(ctx, id, before, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("list deliveries of channel %d: %w", id, err)
	}
	if len(list) > limit {
		return list[:limit], true, nil
	}
	return list, false, nil
}

// Overviews lists every channel of every workspace with counts of its
// events and failures; admins only (errs.ErrForbidden).
func (s *Service) Overviews(ctx context.Context, p identity.Principal) ([]channel.Overview, error) {
	if !p.IsAdmin {
		return nil, errs.Forbidden("only admins see every channel")
	}
	list, err := s.events.Overviews(ctx)
	if err != nil {
		return nil, fmt.Errorf("channel overviews: %w", err)
	}
	return list, nil
}

// AdminSetStatus enables or disables any channel; admins only. A status
// other than active or disabled is errs.ErrInvalid, an unknown channel
// errs.ErrNotFound.
func (s *Service) AdminSetStatus(ctx context.Context, p identity.Principal, id int64, status string) (*channel.Channel, error) {
	if !p.IsAdmin {
		return nil, errs.Forbidden("only admins change any channel")
	}
	c, err := s.store.GetChannel(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, channelNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("get channel %d: %w", id, err)
	}
	c, err = s.store.UpdateChannel(ctx, c.BotID, id, func(c *channel.Channel) error { return setStatus(c, status) })
	if err != nil && !errors.Is(err, errs.ErrInvalid) && !errors.Is(err, errs.ErrNotFound) {
		return nil, fmt.Errorf("update channel %d: %w", id, err)
	}
	return c, err
}
