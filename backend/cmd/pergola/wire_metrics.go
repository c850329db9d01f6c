package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/domain/workflow"
	"github.com/pergola-ai/pergola/infra/metrics"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// observability is what the Prometheus series of the features share: one
// set of bounded labels (PERGOLA_METRICS_*), the chat hook and the
// counter of workflow runs.
type observability struct {
	chat *metrics.ChatHook
	runs *metrics.WorkflowRuns
}

func newObservability(reg prometheus.Registerer, cfg config.Metrics) *observability {
	l := metrics.NewLabels(metrics.Bounds{Workspaces: cfg.MaxWorkspaces, Bots: cfg.MaxBots,
		Workflows: cfg.MaxWorkflows, Tools: cfg.MaxTools, AllowBots: cfg.Bots})
	return &observability{chat: metrics.NewChatHook(reg, l), runs: metrics.NewWorkflowRuns(reg, l)}
}

// watchQueues registers the depth and age gauges of the work queue's
// topics: async workflow runs and inbound channel events, each as the
// consumer group of this database's processes sees it.
func watchQueues(reg prometheus.Registerer, queue workflowQueue, cfg config.Config, log *slog.Logger) {
	src, ok := queue.(metrics.StatsSource)
	if !ok {
		return
	}
	group := workflowGroup(cfg)
	reg.MustRegister(metrics.NewQueues(log,
		metrics.Queue{Name: "workflow_runs", Source: src, Topic: workflowapp.RunTopic, Group: group},
		metrics.Queue{Name: "channel_events", Source: src, Topic: channelapp.EventTopic, Group: strings.Replace(group, "workflow", "channel", 1)},
	))
}

// countedRuns is the store of workflow runs that counts each run as it
// ends (FinishRun for runs stored while they run, SaveRun for direct runs).
type countedRuns struct {
	*sqlstore.WorkflowRunStore
	runs *metrics.WorkflowRuns
}

func (c countedRuns) FinishRun(ctx context.Context, r *workflow.Run) error {
	err := c.WorkflowRunStore.FinishRun(ctx, r)
	if err == nil {
		c.runs.Ended(r)
	}
	return err
}

func (c countedRuns) SaveRun(ctx context.Context, r *workflow.Run, nodes []workflow.NodeRun) error {
	err := c.WorkflowRunStore.SaveRun(ctx, r, nodes)
	if err == nil {
		c.runs.Ended(r)
	}
	return err
}
