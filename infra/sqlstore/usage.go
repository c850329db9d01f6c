package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/application/usage"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// UsageStore reads chats and workflow runs for usage reports. It selects
// the few columns usage needs within a bounded range and leaves grouping to
// Go, so that the SQL stays the same on SQLite and MySQL (no date
// functions).
type UsageStore struct{ db *DB }

var _ usage.Store = (*UsageStore)(nil)

// Usage returns the usage store.
func (db *DB) Usage() *UsageStore { return &UsageStore{db: db} }

// usageRow is the columns of a chat or a run that usage reads.
type usageRow struct {
	WorkspaceID  int64
	BotID        int64
	BotVersion   int64
	Status       string
	InputTokens  int64
	OutputTokens int64
	CreatedAt    time.Time
	FinishedAt   *time.Time
}

// UsageRecords reads chats, then workflow runs, created in [q.From, q.To),
// at most limit in all; the bool reports whether more matched.
func (s *UsageStore) UsageRecords(ctx context.Context, q usage.Query, limit int) ([]usage.Record, bool, error) {
	chats, err := s.read(ctx, "chats", "bot_version, completed_at AS finished_at", q, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("read chats for usage: %w", err)
	}
	runs, err := s.read(ctx, "workflow_runs", "0 AS bot_version, finished_at", q, limit+1-len(chats))
	if err != nil {
		return nil, false, fmt.Errorf("read workflow runs for usage: %w", err)
	}
	models, err := s.models(ctx, chats)
	if err != nil {
		return nil, false, err
	}
	out := make([]usage.Record, 0, len(chats)+len(runs))
	for _, r := range chats {
		out = append(out, chatRecord(r, models))
	}
	for _, r := range runs {
		out = append(out, runRecord(r))
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// read selects the usage columns of table within q, oldest first.
func (s *UsageStore) read(ctx context.Context, table, extra string, q usage.Query, limit int) ([]usageRow, error) {
	if limit <= 0 {
		return nil, nil
	}
	tx := s.db.gorm.WithContext(ctx).Table(table).
		Select("workspace_id, bot_id, status, input_tokens, output_tokens, created_at, "+extra).
		Where("created_at >= ? AND created_at < ?", dbTime(q.From), dbTime(q.To))
	tx = usageScope(tx, q)
	var rows []usageRow
	err := tx.Order("created_at").Limit(limit).Scan(&rows).Error
	return rows, err
}

func usageScope(tx *gorm.DB, q usage.Query) *gorm.DB {
	if q.WorkspaceID != 0 {
		tx = tx.Where("workspace_id = ?", q.WorkspaceID)
	}
	if q.BotID != 0 {
		tx = tx.Where("bot_id = ?", q.BotID)
	}
	return tx
}

// botVersion names the configuration a chat ran with; number 0 is the
// draft.
type botVersion struct{ bot, number int64 }

// models finds the model of each bot version the chats ran with, reading
// each configuration once. A draft's model is the current draft's, the
// closest the store keeps.
func (s *UsageStore) models(ctx context.Context, chats []usageRow) (map[botVersion]string, error) {
	out := map[botVersion]string{}
	for _, c := range chats {
		k := botVersion{c.BotID, c.BotVersion}
		if _, ok := out[k]; ok {
			continue
		}
		m, err := s.model(ctx, k)
		if err != nil {
			return nil, err
		}
		out[k] = m
	}
	return out, nil
}

func (s *UsageStore) model(ctx context.Context, k botVersion) (string, error) {
	var configs []string
	tx := s.db.gorm.WithContext(ctx)
	var err error
	if k.number == 0 {
		err = tx.Model(&botRow{}).Where("id = ?", k.bot).Limit(1).Pluck("draft", &configs).Error
	} else {
		err = tx.Model(&botVersionRow{}).Where("bot_id = ? AND number = ?", k.bot, k.number).Limit(1).Pluck("config", &configs).Error
	}
	if err != nil {
		return "", fmt.Errorf("read the model of bot %d version %d: %w", k.bot, k.number, err)
	}
	if len(configs) == 0 { // the bot was deleted since
		return "", nil
	}
	cfg, err := decodeConfig(configs[0])
	if err != nil {
		return "", fmt.Errorf("decode bot %d version %d: %w", k.bot, k.number, err)
	}
	return cfg.Model.ModelID, nil
}

func chatRecord(r usageRow, models map[botVersion]string) usage.Record {
	return usage.Record{Chat: true, WorkspaceID: r.WorkspaceID, BotID: r.BotID, Model: models[botVersion{r.BotID, r.BotVersion}],
		Failed: r.Status == string(conversation.ChatFailed), Succeeded: r.Status == string(conversation.ChatCompleted), InputTokens: r.InputTokens,
		OutputTokens: r.OutputTokens, CreatedAt: r.CreatedAt.UTC(), FinishedAt: r.FinishedAt}
}

func runRecord(r usageRow) usage.Record {
	return usage.Record{WorkspaceID: r.WorkspaceID, BotID: r.BotID, Failed: r.Status == string(workflow.RunFailed),
		Succeeded: r.Status == string(workflow.RunSucceeded), InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		CreatedAt: r.CreatedAt.UTC(), FinishedAt: r.FinishedAt}
}
