package channel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// maxNameLen bounds a channel's name, in characters.
const maxNameLen = 100

// CreateInput is a channel to create, as the caller sent it.
type CreateInput struct {
	Kind     string
	Name     string         // "" names it after its kind
	Settings map[string]any // as decoded from JSON
}

// Create checks the input, stores an active channel of the bot and, when
// the public URL is set, registers its webhook with the platform. A bad
// kind, name or setting is errs.ErrInvalid naming the field; an
// unreachable bot is errs.ErrNotFound. requestBase builds the webhook URL
// when no public URL is set.
func (s *Service) Create(ctx context.Context, p identity.Principal, botID int64, in CreateInput, requestBase string) (*channel.Channel, error) {
	b, _, err := s.bots.Access(ctx, p, botID)
	if err != nil {
		return nil, err
	}
	spec, ok := channel.SpecOf(channel.Kind(strings.TrimSpace(in.Kind)))
	if !ok {
		return nil, kindError(in.Kind)
	}
	c := &channel.Channel{BotID: botID, WorkspaceID: b.WorkspaceID, Kind: spec.Kind, Status: channel.StatusActive}
	if c.Name, err = checkName(in.Name, string(spec.Kind)); err != nil {
		return nil, err
	}
	if c.Settings, err = s.checkSettings(spec, nil, in.Settings); err != nil {
		return nil, err
	}
	if err := s.platform(spec.Kind).CheckCredentials(ctx, c); err != nil {
		return nil, err
	}
	if err := s.store.CreateChannel(ctx, c); err != nil {
		return nil, fmt.Errorf("create channel: %w", err)
	}
	return c, s.register(ctx, c, requestBase)
}

// register registers the webhook when the public URL is set; a refusal
// removes the channel again, so nothing is half-created.
func (s *Service) register(ctx context.Context, c *channel.Channel, requestBase string) error {
	if s.publicURL == "" {
		return nil
	}
	err := s.platform(c.Kind).RegisterWebhook(ctx, c, s.WebhookURL(requestBase, c))
	if err == nil {
		return nil
	}
	if derr := s.store.DeleteChannel(context.WithoutCancel(ctx), c.BotID, c.ID); derr != nil {
		return errors.Join(err, fmt.Errorf("remove channel %d after its webhook was refused: %w", c.ID, derr))
	}
	return err
}

// checkSettings merges and validates settings, then runs the kind's own
// rules.
func (s *Service) checkSettings(spec channel.Spec, stored channel.Settings, change map[string]any) (channel.Settings, error) {
	out, err := spec.Merge(stored, change)
	if err != nil {
		return nil, err
	}
	return out, s.platform(spec.Kind).Validate(out)
}

func kindError(kind string) error {
	if strings.TrimSpace(kind) == "" {
		return errs.Invalid("kind", "is required: one of %s", channel.KindNames())
	}
	return errs.Invalid("kind", "%q is not a kind of channel; use one of %s", kind, channel.KindNames())
}

// checkName trims a name; an empty one becomes def.
func checkName(name, def string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return def, nil
	}
	if utf8.RuneCountInString(name) > maxNameLen {
		return "", errs.Invalid("name", "must be at most %d characters", maxNameLen)
	}
	return name, nil
}
