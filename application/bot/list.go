package bot

import (
	"context"
	"fmt"
	"reflect"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Publication selects bots by their publication state.
type Publication int

// Publication states a list can select.
const (
	AnyPublication     Publication = iota
	Published                      // published at least once
	Unpublished                    // never published
	EditedSincePublish             // published, with draft changes not published yet
)

// List returns one page of the bots of a workspace, newest first, and how
// many match in all. It needs the bot scope and membership of the
// workspace (errs.ErrForbidden otherwise).
func (s *Service) List(ctx context.Context, p identity.Principal, workspaceID int64, which Publication, page identity.Page) ([]bot.Bot, int64, error) {
	if err := p.RequireScope(identity.ScopeBot); err != nil {
		return nil, 0, err
	}
	if workspaceID <= 0 {
		return nil, 0, errs.Invalid("workspace_id", "is required")
	}
	if _, err := s.access.Authorize(ctx, p, workspaceID, identity.RoleMember); err != nil {
		return nil, 0, err
	}
	switch which {
	case AnyPublication, Published:
		list, total, err := s.store.ListBots(ctx, workspaceID, bot.ListFilter{PublishedOnly: which == Published}, page)
		if err != nil {
			return nil, 0, fmt.Errorf("list bots: %w", err)
		}
		return list, total, nil
	}
	return s.listFiltered(ctx, workspaceID, which, page)
}

// listFiltered selects what bot.ListFilter cannot express by reading every
// bot of the workspace; a workspace holds few enough bots for that.
func (s *Service) listFiltered(ctx context.Context, workspaceID int64, which Publication, page identity.Page) ([]bot.Bot, int64, error) {
	all, _, err := s.store.ListBots(ctx, workspaceID, bot.ListFilter{}, identity.Page{})
	if err != nil {
		return nil, 0, fmt.Errorf("list bots: %w", err)
	}
	var kept []bot.Bot
	for _, b := range all {
		keep := !b.IsPublished()
		if which == EditedSincePublish {
			if keep, err = s.draftDiffers(ctx, &b); err != nil {
				return nil, 0, err
			}
		}
		if keep {
			kept = append(kept, b)
		}
	}
	if page.Size <= 0 {
		return kept, int64(len(kept)), nil
	}
	from := min(page.Offset(), len(kept))
	to := min(from+page.Size, len(kept))
	return kept[from:to], int64(len(kept)), nil
}

// draftDiffers reports whether a published bot's draft is not the
// configuration of its latest version; false for a bot never published.
func (s *Service) draftDiffers(ctx context.Context, b *bot.Bot) (bool, error) {
	if !b.IsPublished() {
		return false, nil
	}
	v, err := s.store.GetVersion(ctx, b.ID, b.PublishedVersion)
	if err != nil {
		return false, fmt.Errorf("list bots: %w", err)
	}
	return !reflect.DeepEqual(b.Draft, v.Config), nil
}
