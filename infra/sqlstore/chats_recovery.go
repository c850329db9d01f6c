package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm/clause"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// Crash recovery of chats. A chat runs on the goroutine of the process
// that started it (or continued it after client tool outputs), and only
// its end is written. When that process dies the row would stay
// in_progress forever, so:
//
//   - the write that puts a chat in progress records the process instance
//     (chats.instance) — part of a write that happens anyway, nothing is
//     added per token or per step;
//   - every process upserts its instance's heartbeat in process_instances
//     every few seconds (one row per process, not per chat);
//   - any process fails the chats in progress whose instance has not
//     beaten since a cutoff: their process is gone.

// processInstanceRow is a process's heartbeat.
type processInstanceRow struct {
	ID          string `gorm:"primaryKey"`
	HeartbeatAt time.Time
}

func (processInstanceRow) TableName() string { return "process_instances" }

// WithInstance returns a store of the same chats that records the process
// instance id on every chat it puts in progress. id names this process
// among all that share the database (e.g. host/pid/start).
func (s *ChatStore) WithInstance(id string) *ChatStore { return &ChatStore{db: s.db, instance: id} }

// Instance returns the process instance the store records ("" if none).
func (s *ChatStore) Instance() string { return s.instance }

// instanceAfter is the instance a chat row names after a write from status
// prev (run by prevInstance) to status next: the writer's when the write
// puts the chat in progress, else whoever ran it.
func (s *ChatStore) instanceAfter(prev, prevInstance, next string) string {
	running := string(conversation.ChatInProgress)
	if next == running && prev != running {
		return s.instance
	}
	return prevInstance
}

// Heartbeat records that this store's process instance is alive at the
// store's clock.
func (s *ChatStore) Heartbeat(ctx context.Context) error {
	row := processInstanceRow{ID: s.instance, HeartbeatAt: s.db.timestamp()}
	err := s.db.gorm.WithContext(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"heartbeat_at"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("sqlstore: heartbeat: %w", err)
	}
	return nil
}

// Forget removes this process instance's heartbeat, when it stops cleanly.
func (s *ChatStore) Forget(ctx context.Context) error {
	err := s.db.gorm.WithContext(ctx).Where("id = ?", s.instance).Delete(&processInstanceRow{}).Error
	if err != nil {
		return fmt.Errorf("sqlstore: forget instance: %w", err)
	}
	return nil
}

// FailOrphanedChats marks failed, with e as their last error, the chats in
// progress of every other process instance that has not beaten since
// aliveSince (chats that name no instance, written before instances were
// recorded, count as orphaned once they started before aliveSince). It
// returns how many chats it failed, and prunes heartbeats older than an
// hour before aliveSince.
func (s *ChatStore) FailOrphanedChats(ctx context.Context, aliveSince time.Time, e conversation.ChatError) (int64, error) {
	doc, _ := json.Marshal(chatErrorDoc{Code: e.Code, Msg: e.Msg})
	since := dbTime(aliveSince)
	alive := s.db.gorm.Model(&processInstanceRow{}).Select("id").Where("heartbeat_at >= ?", since)
	res := s.db.gorm.WithContext(ctx).Model(&chatRow{}).
		Where("status = ? AND instance <> ?", string(conversation.ChatInProgress), s.instance).
		Where("(instance = '' AND created_at < ?) OR (instance <> '' AND instance NOT IN (?))", since, alive).
		UpdateColumns(map[string]any{
			"status": string(conversation.ChatFailed), "failed_at": s.db.timestamp(), "last_error": string(doc),
		})
	if res.Error != nil {
		return 0, fmt.Errorf("sqlstore: fail orphaned chats: %w", res.Error)
	}
	err := s.db.gorm.WithContext(ctx).Where("heartbeat_at < ?", since.Add(-time.Hour)).Delete(&processInstanceRow{}).Error
	if err != nil {
		return res.RowsAffected, fmt.Errorf("sqlstore: prune heartbeats: %w", err)
	}
	return res.RowsAffected, nil
}
