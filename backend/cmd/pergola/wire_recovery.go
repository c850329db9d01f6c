package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// chatRecovery returns the chat store of this process, which records the
// process instance on the chats it runs, and starts the heartbeat and
// sweep that fail the chats of processes that died (see
// chatapp.StartRecovery). PERGOLA_WORKFLOW_LEASE is the lease of both:
// how long a silent process keeps its work. stop forgets the heartbeat.
func chatRecovery(ctx context.Context, db *sqlstore.DB, cfg config.Config, log *slog.Logger) (*sqlstore.ChatStore, func(), error) {
	store := db.Chats().WithInstance(processInstance())
	stop, err := chatapp.StartRecovery(ctx, store, cfg.WorkflowLease, log)
	if err != nil {
		return nil, func() {}, fmt.Errorf("chat recovery: %w", err)
	}
	return store, stop, nil
}

// processInstance names this process among all that share the database:
// host, pid and a random part (a pid is reused after a restart).
func processInstance() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%.64s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}
