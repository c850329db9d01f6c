package main

import (
	"context"
	"log/slog"
	"sync"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	triggerapp "github.com/pergola-ai/pergola/application/trigger"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newTriggers builds the trigger service (bot triggers on bots) and starts this process's
// schedule dispatcher (every process runs one: the database lets exactly
// one claim each tick); the cleanup stops it.
func newTriggers(ctx context.Context, db *sqlstore.DB, ident *identityapp.Service, workflows *workflowapp.Service, bots botTriggers,
	limiter triggerapp.Limiter, cfg config.Config, log *slog.Logger, cleanups *[]func()) *triggerapp.Service {
	d := triggerapp.Deps{Store: db.Triggers(), Access: ident, Runner: workflows,
		Workflows: db.Workflows(), Log: log, Limiter: limiter, MinInterval: cfg.Triggers.MinInterval}
	bots.deps(&d)
	svc := triggerapp.New(d)
	bots.outcomes.svc.Store(svc)
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Dispatch(dctx, cfg.Triggers.Poll)
	}()
	var once sync.Once
	*cleanups = append(*cleanups, func() { once.Do(func() { cancel(); <-done }) })
	return svc
}
