package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// BotStore keeps bots in the bots table and their published versions in
// bot_versions. Every write and list names the workspace it acts in; a bot
// of another workspace is reported as unknown.
type BotStore struct{ db *DB }

var _ bot.Store = (*BotStore)(nil)

// Bots returns the store of bots and their versions.
func (db *DB) Bots() *BotStore { return &BotStore{db: db} }

type botRow struct {
	ID               int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID      int64
	CreatorID        int64
	Draft            string // configDoc JSON
	DraftRevision    int64
	PublishedVersion int64
	PublishedAt      *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

func (botRow) TableName() string { return "bots" }

func botToRow(b *bot.Bot) (*botRow, error) {
	draft, err := encodeConfig(&b.Draft)
	if err != nil {
		return nil, fmt.Errorf("encode draft of bot %d: %w", b.ID, err)
	}
	return &botRow{
		ID: b.ID, WorkspaceID: b.WorkspaceID, CreatorID: b.CreatorID, Draft: draft,
		DraftRevision: b.DraftRevision, PublishedVersion: b.PublishedVersion, PublishedAt: dbTimePtr(b.PublishedAt),
		CreatedAt: dbTime(b.CreatedAt), UpdatedAt: dbTime(b.UpdatedAt),
	}, nil
}

func botFromRow(r *botRow) (*bot.Bot, error) {
	draft, err := decodeConfig(r.Draft)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: draft of bot %d: %w", r.ID, err)
	}
	return &bot.Bot{
		ID: r.ID, WorkspaceID: r.WorkspaceID, CreatorID: r.CreatorID, Draft: draft,
		DraftRevision: r.DraftRevision, PublishedVersion: r.PublishedVersion, PublishedAt: utcPtr(r.PublishedAt),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}, nil
}

func botNotFound(id int64) error { return errs.NotFound("bot", strconv.FormatInt(id, 10)) }

// CreateBot stores b, assigning its ID when zero, its timestamps and
// DraftRevision 1; it is not published. It returns errs.ErrNotFound when
// the workspace does not exist and errs.ErrConflict when the ID is taken.
func (s *BotStore) CreateBot(ctx context.Context, b *bot.Bot) error {
	if b.ID == 0 {
		b.ID = s.db.ids.Next()
	}
	b.DraftRevision, b.PublishedVersion, b.PublishedAt = 1, 0, nil
	b.CreatedAt = s.db.timestamp()
	b.UpdatedAt = b.CreatedAt
	row, err := botToRow(b)
	if err != nil {
		return fmt.Errorf("sqlstore: create bot: %w", err)
	}
	err = s.db.gorm.WithContext(ctx).Create(row).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return workspaceNotFound(b.WorkspaceID)
	case isDuplicate(err):
		return errs.Conflict("bot %d already exists", b.ID)
	}
	return fmt.Errorf("sqlstore: create bot: %w", err)
}

// GetBot returns the bot with id, or errs.ErrNotFound.
func (s *BotStore) GetBot(ctx context.Context, id int64) (*bot.Bot, error) {
	var row botRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, botNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get bot: %w", err)
	}
	return botFromRow(&row)
}

// ListBots returns one page of the bots of a workspace, newest first, and
// how many match in all; f.PublishedOnly keeps the published ones.
func (s *BotStore) ListBots(ctx context.Context, workspaceID int64, f bot.ListFilter, p identity.Page) ([]bot.Bot, int64, error) {
	query := func() *gorm.DB {
		q := s.db.gorm.WithContext(ctx).Model(&botRow{}).Where("workspace_id = ?", workspaceID)
		if f.PublishedOnly {
			q = q.Where("published_version > 0")
		}
		return q
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count bots: %w", err)
	}
	var rows []botRow
	if err := page(query().Order("created_at DESC, id DESC"), p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list bots: %w", err)
	}
	out := make([]bot.Bot, len(rows))
	for i := range rows {
		b, err := botFromRow(&rows[i])
		if err != nil {
			return nil, 0, err
		}
		out[i] = *b
	}
	return out, total, nil
}

// UpdateBot runs fn on the bot inside a transaction, with its row locked,
// and saves what fn leaves with DraftRevision increased and UpdatedAt set.
// Only the draft changes: id, workspace, creator, publication and creation
// time are kept whatever fn does. It returns errs.ErrNotFound when the bot
// is not in the workspace, and fn's error unchanged, writing nothing, when
// fn fails.
func (s *BotStore) UpdateBot(ctx context.Context, workspaceID, id int64, fn func(*bot.Bot) error) (*bot.Bot, error) {
	var changed *bot.Bot
	row, err := updateLocked(ctx, s.db, "update bot", func() error { return botNotFound(id) }, func(r *botRow) error {
		b, err := botFromRow(r)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
		kept := *r
		kept.DraftRevision++
		kept.UpdatedAt = s.db.timestamp()
		if kept.Draft, err = encodeConfig(&b.Draft); err != nil {
			return fmt.Errorf("sqlstore: update bot %d: %w", id, err)
		}
		*r = kept
		changed, err = botFromRow(r)
		return err
	}, "id = ? AND workspace_id = ?", id, workspaceID)
	if err != nil {
		return nil, err
	}
	changed.UpdatedAt = row.UpdatedAt.UTC() // gorm may have set it again
	return changed, nil
}

// DeleteBot removes the bot with its versions, channels, publications and
// variable values, in one transaction. It returns errs.ErrNotFound when
// the bot is not in the workspace.
func (s *BotStore) DeleteBot(ctx context.Context, workspaceID, id int64) error {
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("id = ? AND workspace_id = ?", id, workspaceID).Delete(&botRow{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return botNotFound(id)
		}
		// The foreign keys cascade; deleting explicitly keeps this true on
		// a database created without them.
		if err := tx.Where("bot_id = ?", id).Delete(&botVersionRow{}).Error; err != nil {
			return err
		}
		if err := tx.Where("bot_id = ?", id).Delete(&channelRow{}).Error; err != nil {
			return err
		}
		if err := tx.Where("bot_id = ?", id).Delete(&publicationRow{}).Error; err != nil {
			return err
		}
		return tx.Where("bot_id = ?", id).Delete(&variableValueRow{}).Error
	})
	if err != nil && !isDomain(err) {
		return fmt.Errorf("sqlstore: delete bot: %w", err)
	}
	return err
}
