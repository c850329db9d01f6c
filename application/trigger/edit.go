package trigger

import (
	"context"
	"time"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// Update edits a trigger the caller can reach, checked as a new trigger
// is (errs.ErrInvalid naming the field). A new target of a bot trigger
// is checked as on creation and starts a new conversation; an active
// schedule whose schedule changed waits for its first tick under the new
// one.
func (s *Service) Update(ctx context.Context, p identity.Principal, id int64, patch trigger.Patch) (*trigger.Trigger, error) {
	t, err := s.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	edited, err := patch.Apply(*t)
	if err != nil {
		return nil, err
	}
	var next *time.Time
	if edited.Kind == trigger.KindSchedule {
		if next, err = s.firstTick(&edited); err != nil {
			return nil, err
		}
	}
	if patch.Inputs != nil {
		if err := s.checkInputs(ctx, p, &edited); err != nil {
			return nil, err
		}
	}
	if patch.TargetChanged() {
		if _, err := s.reachBot(ctx, p, &edited); err != nil {
			return nil, err
		}
		edited.ConversationID = 0
	}
	if err := s.d.Store.Update(ctx, &edited); err != nil {
		return nil, err
	}
	if next != nil && patch.ScheduleChanged() && edited.State == trigger.StateActive {
		if err := s.d.Store.SetState(ctx, id, trigger.StateActive, "", next); err != nil {
			return nil, err
		}
	}
	return s.d.Store.Get(ctx, id)
}
