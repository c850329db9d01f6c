package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	appapp "github.com/pergola-ai/pergola/application/app"
	botapp "github.com/pergola-ai/pergola/application/bot"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/modelreg"
	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	tableapp "github.com/pergola-ai/pergola/application/table"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/domain/variable"
	"github.com/pergola-ai/pergola/infra/egress"
	"github.com/pergola-ai/pergola/infra/metrics"
	"github.com/pergola-ai/pergola/infra/provider"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	wf "github.com/pergola-ai/pergola/workflow"
)

// workflowQueue is the work queue of async runs: memory.Queue on the
// embedded default, redis.Queue when processes share Redis.
type workflowQueue interface {
	workflowapp.Publisher
	workflowapp.Consumer
}

// workflowWorkers is how many async runs one process runs at once.
const workflowWorkers = 4

// newWorkflows wires the workflow engine to the services its nodes use
// (models, plugin tools, tables, knowledge bases (nil: knowledge nodes
// fail saying so), bot variables, the guarded HTTP client, the stored
// versions of sub-workflows) and the workflow use cases over
// it. Direct runs (synchronous, unable to ask) are stored in one write
// when they end; the others' node records are written in batches by the
// history writer and their states (leases, interrupts) live in the
// database. It starts the worker of async runs on queue; stop (always
// safe to call) stops it, leaving the runs it held for another process,
// and then the code-node workers.
func newWorkflows(ctx context.Context, db *sqlstore.DB, ident *identityapp.Service, models *modelreg.Registry, modelHTTP *http.Client, bots *botapp.Service,
	plugins *pluginapp.Service, tables *tableapp.Service, knowledge wf.Knowledge, queue workflowQueue, cfg config.Config, log *slog.Logger, cache *caches,
	runMetrics *metrics.WorkflowRuns, tracer workflowapp.RunTracer, sh *shares) (*workflowapp.Service, func(), error) {
	guard, err := egress.New(egress.Config{Allow: cfg.EgressAllow})
	if err != nil {
		return nil, func() {}, fmt.Errorf("PERGOLA_EGRESS_ALLOW: %w", err)
	}
	code, stopCode, err := newCodeRunner(cfg, log, sh)
	if err != nil {
		return nil, func() {}, err
	}
	lease := cfg.WorkflowLease
	history := workflowapp.NewHistory(db.WorkflowRuns(), log)
	appVars := appapp.NewVariables(db.Apps())
	engine := wf.New(wf.Config{
		Models:    modelProvider{models: models, factory: provider.Factory{HTTPClient: modelHTTP}, shares: sh},
		Tools:     pluginTools{svc: plugins},
		Tables:    tableQuerier{svc: tables},
		Variables: botVariables{store: db.Bots(), svc: bots},
		AppVars:   appVars,
		Convs: appapp.NewConversations(appapp.ConversationDeps{Apps: db.Apps(), Names: db.Apps(),
			Convs: db.Conversations(), Msgs: db.Messages()}),
		HTTP:      guard.Client(),
		Knowledge: knowledge,
		Workflows: workflowapp.NewLoader(db.Workflows()),
		History:   history,
		Code:      code,
		Python:    newPythonRunner(cfg, log, sh),
		Limits:    wf.Limits{CodeParallel: cfg.CodeWorkers()},
	})
	counted := countedRuns{WorkflowRunStore: db.WorkflowRuns(), runs: runMetrics}
	svc := workflowapp.New(workflowapp.Deps{Store: cache.workflows(db), Runs: counted, Writer: counted, Access: ident,
		Bots: botWorkspaces{db.Bots()}, Apps: appVars, Engine: engine, History: history, IDs: db.IDs(), Log: log,
		States: db.WorkflowRunStates(), Queue: queue, Lease: lease, Tracer: tracer})
	if err := svc.Beat(ctx); err != nil { // before any run names this process
		stopCode()
		return nil, func() {}, fmt.Errorf("workflow heartbeat: %w", err)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Work(wctx, queue, workflowGroup(cfg), workflowWorkers)
	}()
	var once sync.Once
	return svc, func() { once.Do(func() { cancel(); <-done; stopCode() }) }, nil
}

// workflowGroup names the queue consumer group of the processes sharing
// this database: a hash of its DSN (or of the SQLite file's directory).
func workflowGroup(cfg config.Config) string {
	key := cfg.DBDSN
	if key == "" {
		key = cfg.DataDir
	}
	sum := sha256.Sum256([]byte(key))
	return "workflow-workers-" + hex.EncodeToString(sum[:6])
}

// modelProvider builds the chat models of llm and intent nodes from the
// model registry.
type modelProvider struct {
	models  *modelreg.Registry
	factory provider.Factory
	shares  *shares // the model pool the calls share
}

func (p modelProvider) ChatModel(ctx context.Context, id string) (model.ToolCallingChatModel, error) {
	m, err := p.models.Get(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errs.Invalid("model_id", "there is no model %q; pick one of GET /api/models", id)
	}
	if err != nil {
		return nil, err
	}
	if !m.Enabled {
		return nil, errs.Invalid("model_id", "model %q is disabled", id)
	}
	if !m.IsChat() {
		return nil, errs.Invalid("model_id", "model %q is of kind %q, not a chat model; pick one of GET /api/models", id, m.KindOrChat())
	}
	cm, err := p.factory.ChatModel(ctx, *m)
	if err != nil {
		return nil, err
	}
	return p.shares.sharedModel(cm), nil
}

// pluginTools runs plugin tools through the plugin service, as a bot
// binding the one tool would (the plugin's draft: no version is pinned).
type pluginTools struct{ svc *pluginapp.Service }

func (p pluginTools) tool(ctx context.Context, ref wf.ToolRef) (tool.InvokableTool, error) {
	if p.svc == nil {
		return nil, errs.New(errs.ErrUnavailable, "plugins are not available in this process")
	}
	cfg := &bot.Config{Plugins: []bot.PluginTool{{PluginID: ref.PluginID, Tool: ref.Tool}}}
	tools, err := p.svc.BotTools(ctx, &bot.Bot{WorkspaceID: ref.WorkspaceID}, cfg)
	if err != nil {
		return nil, err
	}
	if len(tools) == 0 {
		return nil, errs.NotFound("tool", fmt.Sprintf("%s of plugin %d", ref.Tool, ref.PluginID))
	}
	t, ok := tools[0].(tool.InvokableTool)
	if !ok {
		return nil, fmt.Errorf("tool %s of plugin %d cannot be invoked", ref.Tool, ref.PluginID)
	}
	return t, nil
}

func (p pluginTools) DescribeTool(ctx context.Context, ref wf.ToolRef) (*schema.ToolInfo, error) {
	t, err := p.tool(ctx, ref)
	if err != nil {
		return nil, err
	}
	return t.Info(ctx)
}

func (p pluginTools) InvokeTool(ctx context.Context, ref wf.ToolRef, args string) (string, error) {
	t, err := p.tool(ctx, ref)
	if err != nil {
		return "", err
	}
	return t.InvokableRun(ctx, args)
}

// tableQuerier runs table nodes through the table service, with the
// rights of the caller who started the run and the statement the bot's SQL
// tool would run: the same guard checks it.
type tableQuerier struct{ svc *tableapp.Service }

func (q tableQuerier) QueryTable(ctx context.Context, tq wf.TableQuery) (*wf.TableResult, error) {
	caller, ok := workflowapp.CallerFrom(ctx)
	if !ok || q.svc == nil {
		return nil, errs.New(errs.ErrUnavailable, "tables are not available in this run")
	}
	t, err := q.svc.Get(ctx, caller, tq.TableID)
	if err == nil && t.WorkspaceID != tq.Scope.WorkspaceID {
		err = errs.NotFound("table", fmt.Sprint(tq.TableID))
	}
	if err != nil {
		return nil, err
	}
	stmt, err := workflowapp.TableStatement(tq, t.Name)
	if err != nil {
		return nil, err
	}
	sc := table.Scope{Data: table.DataOnline, UserID: tq.Scope.UserID}
	if tq.Scope.Draft {
		sc.Data = table.DataDraft
	}
	res, err := q.svc.RunSQL(ctx, caller, tq.TableID, sc, stmt)
	if err != nil {
		return nil, err
	}
	out := &wf.TableResult{RowsAffected: res.Affected, Rows: make([]map[string]any, len(res.Rows))}
	for i, r := range res.Rows {
		row := make(map[string]any, len(res.Columns))
		for j, col := range res.Columns {
			row[col] = r[j]
		}
		out.Rows[i] = row
	}
	return out, nil
}

// botVariables reads and writes the variables of a run's bot and end
// user through the bot service: those its draft and its published
// version define.
type botVariables struct {
	store bot.Store
	svc   *botapp.Service
}

func (v botVariables) definitions(ctx context.Context, botID int64) ([]variable.Definition, error) {
	b, err := v.store.GetBot(ctx, botID)
	if err != nil {
		return nil, err
	}
	defs := slices.Clone(b.Draft.Variables)
	if b.IsPublished() {
		pub, err := v.store.GetVersion(ctx, botID, b.PublishedVersion)
		if err != nil {
			return nil, err
		}
		for _, d := range pub.Config.Variables {
			if !slices.ContainsFunc(defs, func(x variable.Definition) bool { return x.Keyword == d.Keyword }) {
				defs = append(defs, d)
			}
		}
	}
	return defs, nil
}

func (v botVariables) Variables(ctx context.Context, s wf.Scope) (map[string]string, error) {
	defs, err := v.definitions(ctx, s.BotID)
	if err != nil {
		return nil, err
	}
	return v.svc.VariableValues(ctx, variable.Scope{BotID: s.BotID, ConnectorID: s.ConnectorID, UserID: s.UserID}, defs)
}

func (v botVariables) SetVariables(ctx context.Context, s wf.Scope, values map[string]string) error {
	defs, err := v.definitions(ctx, s.BotID)
	if err != nil {
		return err
	}
	kvs := make([]variable.KV, 0, len(values))
	for _, k := range slices.Sorted(maps.Keys(values)) {
		kvs = append(kvs, variable.KV{Keyword: k, Value: values[k]})
	}
	_, refused, err := v.svc.SetVariables(ctx, variable.Scope{BotID: s.BotID, ConnectorID: s.ConnectorID, UserID: s.UserID}, defs, kvs)
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return errs.Invalid(refused[0], "is not a variable of bot %d, or its value is too long", s.BotID)
	}
	return nil
}
