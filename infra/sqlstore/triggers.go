package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

var _ trigger.Store = (*TriggerStore)(nil)

// TriggerStore keeps triggers in the triggers table, their webhook
// secrets sealed with the DB's Cipher.
type TriggerStore struct{ db *DB }

// Triggers returns the trigger store.
func (db *DB) Triggers() *TriggerStore { return &TriggerStore{db: db} }

type triggerRow struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64
	CreatorID   int64
	Name        string
	Kind        string
	WorkflowID  int64
	Inputs      string
	Cron        string
	TimeZone    string
	IntervalMs  int64
	Missed      string
	Secret      string
	Auth        string
	Answer      string
	RateLimit   int
	State       string
	PauseReason string
	NextRun     *time.Time
	LastRun     *time.Time
	LastRunID   int64
	LastStatus  string
	LastError   string
	// A bot trigger's bot, prompt and target (migration 27).
	BotID          int64
	Prompt         string
	ChannelID      int64
	ChatID         string
	EndUser        string
	ConversationID int64
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (triggerRow) TableName() string { return "triggers" }

func triggerNotFound(id int64) error { return errs.NotFound("trigger", strconv.FormatInt(id, 10)) }

// Create stores t, assigning its ID when zero and its timestamps. It
// returns errs.ErrNotFound when the workspace does not exist.
func (s *TriggerStore) Create(ctx context.Context, t *trigger.Trigger) error {
	if t.ID == 0 {
		t.ID = s.db.ids.Next()
	}
	now := s.db.timestamp()
	t.CreatedAt, t.UpdatedAt = now, now
	row, err := s.toRow(t)
	if err != nil {
		return fmt.Errorf("sqlstore: create trigger: %w", err)
	}
	if err := s.db.gorm.WithContext(ctx).Create(row).Error; err != nil {
		if isMissingParent(err) {
			return errs.NotFound("workspace", strconv.FormatInt(t.WorkspaceID, 10))
		}
		return fmt.Errorf("sqlstore: create trigger: %w", err)
	}
	return nil
}

// Get returns a trigger or errs.ErrNotFound.
func (s *TriggerStore) Get(ctx context.Context, id int64) (*trigger.Trigger, error) {
	var row triggerRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, triggerNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get trigger: %w", err)
	}
	return s.fromRow(&row)
}

// List returns a page of the triggers of a workspace, oldest first, and
// how many it has.
func (s *TriggerStore) List(ctx context.Context, workspaceID int64, page identity.Page) ([]trigger.Trigger, int64, error) {
	q := s.db.gorm.WithContext(ctx).Model(&triggerRow{}).Where("workspace_id = ?", workspaceID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count triggers: %w", err)
	}
	var rows []triggerRow
	err := q.Order("created_at, id").Offset(page.Offset()).Limit(page.Size).Find(&rows).Error
	if err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list triggers: %w", err)
	}
	out, err := s.fromRows(rows)
	return out, total, err
}

// Update stores the editable fields of t and its conversation, not its
// state or next run (SetState), which a dispatcher may be moving on.
func (s *TriggerStore) Update(ctx context.Context, t *trigger.Trigger) error {
	inputs, err := json.Marshal(t.Inputs)
	if err != nil {
		return fmt.Errorf("sqlstore: update trigger: %w", err)
	}
	return s.update(ctx, t.ID, map[string]any{"name": t.Name, "inputs": string(inputs), "cron": t.Cron,
		"time_zone": t.TimeZone, "interval_ms": t.Interval.Milliseconds(), "missed": string(t.Missed),
		"rate_limit": t.RateLimit, "prompt": t.Bot.Prompt, "channel_id": t.Bot.ChannelID,
		"chat_id": t.Bot.ChatID, "end_user": t.Bot.EndUser, "conversation_id": t.ConversationID})
}

// Delete removes a trigger, or returns errs.ErrNotFound.
func (s *TriggerStore) Delete(ctx context.Context, id int64) error {
	res := s.db.gorm.WithContext(ctx).Where("id = ?", id).Delete(&triggerRow{})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: delete trigger: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return triggerNotFound(id)
	}
	return nil
}

// SetState pauses or resumes a trigger.
func (s *TriggerStore) SetState(ctx context.Context, id int64, state trigger.State, reason string, next *time.Time) error {
	return s.update(ctx, id, map[string]any{"state": string(state), "pause_reason": reason, "next_run": dbTimePtr(next)})
}

// Record stores the outcome of a firing, unless the trigger holds the
// outcome of a later one (a bot's turn may end after the next tick).
func (s *TriggerStore) Record(ctx context.Context, id int64, o trigger.Outcome) error {
	at := dbTime(o.At)
	cols := map[string]any{"last_run": &at, "last_run_id": o.RunID, "last_status": o.Status, "last_error": o.Error,
		"updated_at": s.db.timestamp()}
	if o.ConversationID != 0 {
		cols["conversation_id"] = o.ConversationID
	}
	res := s.db.gorm.WithContext(ctx).Model(&triggerRow{}).
		Where("id = ? AND (last_run IS NULL OR last_run <= ?)", id, at).Updates(cols)
	if res.Error != nil {
		return fmt.Errorf("sqlstore: record trigger outcome: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		if _, err := s.Get(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

func (s *TriggerStore) update(ctx context.Context, id int64, cols map[string]any) error {
	cols["updated_at"] = s.db.timestamp()
	res := s.db.gorm.WithContext(ctx).Model(&triggerRow{}).Where("id = ?", id).Updates(cols)
	if res.Error != nil {
		return fmt.Errorf("sqlstore: update trigger: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return triggerNotFound(id)
	}
	return nil
}

// Due returns active schedules whose next run is at or before now, the
// most overdue first.
func (s *TriggerStore) Due(ctx context.Context, now time.Time, limit int) ([]trigger.Trigger, error) {
	var rows []triggerRow
	err := s.db.gorm.WithContext(ctx).
		Where("state = ? AND next_run IS NOT NULL AND next_run <= ?", string(trigger.StateActive), dbTime(now)).
		Order("next_run, id").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: due triggers: %w", err)
	}
	return s.fromRows(rows)
}

// Claim moves next_run from tick to next only if it is still tick: of
// processes claiming the same tick, the UPDATE of exactly one changes a
// row.
func (s *TriggerStore) Claim(ctx context.Context, id int64, tick, next time.Time) (bool, error) {
	res := s.db.gorm.WithContext(ctx).Model(&triggerRow{}).
		Where("id = ? AND state = ? AND next_run = ?", id, string(trigger.StateActive), dbTime(tick)).
		Updates(map[string]any{"next_run": dbTime(next), "updated_at": s.db.timestamp()})
	if res.Error != nil {
		return false, fmt.Errorf("sqlstore: claim trigger tick: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}

func (s *TriggerStore) toRow(t *trigger.Trigger) (*triggerRow, error) {
	inputs, err := json.Marshal(t.Inputs)
	if err != nil {
		return nil, err
	}
	sealed := ""
	if t.Secret != "" {
		if s.db.cipher == nil {
			return nil, errNoCipher
		}
		if sealed, err = s.db.cipher.Encrypt(t.Secret); err != nil {
			return nil, err
		}
	}
	return &triggerRow{
		ID: t.ID, WorkspaceID: t.WorkspaceID, CreatorID: t.CreatorID, Name: t.Name, Kind: string(t.Kind),
		WorkflowID: t.WorkflowID, Inputs: string(inputs), Cron: t.Cron, TimeZone: t.TimeZone,
		IntervalMs: t.Interval.Milliseconds(), Missed: string(t.Missed), Secret: sealed, Auth: string(t.Auth),
		Answer: string(t.Answer), RateLimit: t.RateLimit, State: string(t.State), PauseReason: t.PauseReason,
		NextRun: dbTimePtr(t.NextRun), LastRun: dbTimePtr(t.LastRun), LastRunID: t.LastRunID,
		LastStatus: t.LastStatus, LastError: t.LastError, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		BotID: t.Bot.BotID, Prompt: t.Bot.Prompt, ChannelID: t.Bot.ChannelID, ChatID: t.Bot.ChatID, EndUser: t.Bot.EndUser,
		ConversationID: t.ConversationID,
	}, nil
}

func (s *TriggerStore) fromRows(rows []triggerRow) ([]trigger.Trigger, error) {
	out := make([]trigger.Trigger, len(rows))
	for i := range rows {
		t, err := s.fromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = *t
	}
	return out, nil
}

func (s *TriggerStore) fromRow(r *triggerRow) (*trigger.Trigger, error) {
	t := &trigger.Trigger{
		ID: r.ID, WorkspaceID: r.WorkspaceID, CreatorID: r.CreatorID, Name: r.Name, Kind: trigger.Kind(r.Kind),
		WorkflowID: r.WorkflowID, Cron: r.Cron, TimeZone: r.TimeZone,
		Interval: time.Duration(r.IntervalMs) * time.Millisecond, Missed: trigger.Missed(r.Missed),
		Auth: trigger.Auth(r.Auth), Answer: trigger.Answer(r.Answer), RateLimit: r.RateLimit,
		State: trigger.State(r.State), PauseReason: r.PauseReason, NextRun: utcPtr(r.NextRun), LastRun: utcPtr(r.LastRun),
		LastRunID: r.LastRunID, LastStatus: r.LastStatus, LastError: r.LastError,
		Bot:            trigger.Bot{BotID: r.BotID, Prompt: r.Prompt, ChannelID: r.ChannelID, ChatID: r.ChatID, EndUser: r.EndUser},
		ConversationID: r.ConversationID, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if err := json.Unmarshal([]byte(r.Inputs), &t.Inputs); err != nil {
		return nil, fmt.Errorf("sqlstore: trigger %d inputs: %w", r.ID, err)
	}
	if r.Secret != "" {
		if s.db.cipher == nil {
			return nil, errNoCipher
		}
		plain, err := s.db.cipher.Decrypt(r.Secret)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: trigger %d secret: %w", r.ID, err)
		}
		t.Secret = plain
	}
	return t, nil
}
