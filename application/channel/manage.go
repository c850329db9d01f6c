package channel

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// List returns the channels of a bot, oldest first; access as for Create.
func (s *Service) List(ctx context.Context, p identity.Principal, botID int64) ([]channel.Channel, error) {
	if _, _, err := s.bots.Access(ctx, p, botID); err != nil {
		return nil, err
	}
	list, err := s.store.ListChannels(ctx, botID)
	if err != nil {
		return nil, fmt.Errorf("list channels of bot %d: %w", botID, err)
	}
	return list, nil
}

// Get returns one channel of a bot; a channel of another bot is
// errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, p identity.Principal, botID, id int64) (*channel.Channel, error) {
	if _, _, err := s.bots.Access(ctx, p, botID); err != nil {
		return nil, err
	}
	c, err := s.store.GetChannel(ctx, id)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && c.BotID != botID) {
		return nil, channelNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("get channel %d: %w", id, err)
	}
	return c, nil
}

// Patch is a change to a channel; nil fields are left alone.
type Patch struct {
	Kind     *string        // refused unless it is the channel's own
	Name     *string        // "" names it after its kind
	Status   *string        // "active" or "disabled"
	Settings map[string]any // merged: see channel.Spec.Merge
}

// Update applies a patch to a channel of a bot. Secrets not sent (or sent
// back masked) are kept. Changed settings are checked with the platform
// as on creation (CheckCredentials, and the webhook registered again
// when the public URL is set) before anything is stored; a failing
// channel whose new settings pass is active again. Bad input is
// errs.ErrInvalid naming the field, with nothing written.
func (s *Service) Update(ctx context.Context, p identity.Principal, botID, id int64, patch Patch) (*channel.Channel, error) {
	if _, _, err := s.bots.Access(ctx, p, botID); err != nil {
		return nil, err
	}
	was, err := s.store.GetChannel(ctx, id)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && was.BotID != botID) {
		return nil, channelNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("get channel %d: %w", id, err)
	}
	checked, err := s.recheck(ctx, was, patch)
	if err != nil {
		return nil, err
	}
	c, err := s.store.UpdateChannel(ctx, botID, id, func(c *channel.Channel) error {
		if checked && !maps.EqualFunc(c.Settings, was.Settings, reflect.DeepEqual) {
			return errs.Conflict("the settings of channel %d changed while the new ones were checked; send the change again", id)
		}
		return s.apply(c, patch, checked)
	})
	if err != nil {
		if errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrInvalid) || errors.Is(err, errs.ErrConflict) {
			return nil, err
		}
		return nil, fmt.Errorf("update channel %d: %w", id, err)
	}
	return c, nil
}

// recheck applies patch to a copy of c and, when that changes its
// settings, checks the new ones with the platform as Create does; it
// reports whether it did. Nothing is stored.
func (s *Service) recheck(ctx context.Context, c *channel.Channel, patch Patch) (bool, error) {
	draft := *c
	if err := s.apply(&draft, patch, false); err != nil {
		return false, err
	}
	if maps.EqualFunc(draft.Settings, c.Settings, reflect.DeepEqual) {
		return false, nil
	}
	platform := s.platform(c.Kind)
	if err := platform.CheckCredentials(ctx, &draft); err != nil {
		return false, err
	}
	if s.publicURL == "" {
		return true, nil
	}
	return true, platform.RegisterWebhook(ctx, &draft, s.WebhookURL("", &draft))
}

// apply changes c as patch says; checked says its new settings passed
// the platform's checks, which makes a failing channel active again.
func (s *Service) apply(c *channel.Channel, patch Patch, checked bool) error {
	if patch.Kind != nil && channel.Kind(*patch.Kind) != c.Kind {
		return errs.Invalid("kind", "cannot change from %s; create a new channel of kind %q instead", c.Kind, *patch.Kind)
	}
	if patch.Name != nil {
		name, err := checkName(*patch.Name, string(c.Kind))
		if err != nil {
			return err
		}
		c.Name = name
	}
	if patch.Status != nil {
		if err := setStatus(c, *patch.Status); err != nil {
			return err
		}
	}
	if patch.Settings == nil {
		return nil
	}
	spec, _ := channel.SpecOf(c.Kind)
	settings, err := s.checkSettings(spec, c.Settings, patch.Settings)
	if err != nil {
		return err
	}
	c.Settings = settings
	if checked && c.Status == channel.StatusFailing {
		c.Status, c.StatusDetail = channel.StatusActive, ""
	}
	return nil
}

// setStatus enables or disables a channel. Enabling a failing channel
// makes it active again, for the runtime to try anew.
func setStatus(c *channel.Channel, status string) error {
	switch channel.Status(status) {
	case channel.StatusActive, channel.StatusDisabled:
		c.Status, c.StatusDetail = channel.Status(status), ""
		return nil
	}
	return errs.Invalid("status", "must be active or disabled, got %q (failing is set by Pergola when the platform refuses the channel's credentials)", status)
}

// Delete removes a channel of a bot, and with it what was published to
// it. It needs the bot's creator or an admin of the workspace
// (errs.ErrForbidden otherwise).
func (s *Service) Delete(ctx context.Context, p identity.Principal, botID, id int64) error {
	b, m, err := s.bots.Access(ctx, p, botID)
	if err != nil {
		return err
	}
	if b.CreatorID != p.UserID && !m.Role.AtLeast(identity.RoleAdmin) {
		return errs.Forbidden("only the bot's creator or an admin of workspace %d may delete channels of bot %d", b.WorkspaceID, botID)
	}
	if err := s.store.DeleteChannel(ctx, botID, id); err != nil {
		if errors.Is(err, errs.ErrNotFound) {
			return channelNotFound(id)
		}
		return fmt.Errorf("delete channel %d: %w", id, err)
	}
	return nil
}
