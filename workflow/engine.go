package workflow

import (
	"context"
	"fmt"
	"time"
)

// Limits bound what one workflow may use. Zero fields take the defaults
// of DefaultLimits.
type Limits struct {
	MaxNodes      int           // nodes per workflow, bodies included
	MaxDepth      int           // nesting of bodies and sub-workflows
	MaxIterations int           // iterations of one loop, items of one batch
	MaxParallel   int           // nodes running at once in a run; the cap of a batch's concurrency
	RunTimeout    time.Duration // a whole run
	NodeTimeout   time.Duration // one attempt of a node without its own timeout
	CodeTimeout   time.Duration // one run of a code node without its own timeout
	CodeMemory    int64         // bytes a code node may hold
	CodeParallel  int           // code nodes running at once in the process (0: GOMAXPROCS); the others wait their turn
	HTTPBodyBytes int64         // bytes of an HTTP node's response kept
	DocumentBytes int64         // bytes of a file a knowledge write node fetches
	CacheSize     int           // compiled workflows kept in memory
}

// DefaultLimits returns the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{MaxNodes: 200, MaxDepth: 5, MaxIterations: 1000, MaxParallel: 16,
		RunTimeout: 10 * time.Minute, NodeTimeout: 2 * time.Minute, CodeTimeout: 5 * time.Second,
		CodeMemory: 64 << 20, HTTPBodyBytes: 1 << 20, DocumentBytes: 20 << 20, CacheSize: 256}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	pickD := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	l.MaxNodes, l.MaxDepth = pick(l.MaxNodes, d.MaxNodes), pick(l.MaxDepth, d.MaxDepth)
	l.MaxIterations, l.MaxParallel = pick(l.MaxIterations, d.MaxIterations), pick(l.MaxParallel, d.MaxParallel)
	l.CacheSize = pick(l.CacheSize, d.CacheSize)
	l.RunTimeout, l.NodeTimeout = pickD(l.RunTimeout, d.RunTimeout), pickD(l.NodeTimeout, d.NodeTimeout)
	l.CodeTimeout = pickD(l.CodeTimeout, d.CodeTimeout)
	if l.CodeMemory <= 0 {
		l.CodeMemory = d.CodeMemory
	}
	if l.HTTPBodyBytes <= 0 {
		l.HTTPBodyBytes = d.HTTPBodyBytes
	}
	if l.DocumentBytes <= 0 {
		l.DocumentBytes = d.DocumentBytes
	}
	return l
}

// Config is what an engine is built from: the catalog, the ports and the
// limits. Every port may be nil; see ports.go.
type Config struct {
	Catalog     *Catalog // nil: NewCatalog()
	Models      ModelProvider
	Tools       ToolInvoker
	Tables      TableQuerier
	Variables   VariableStore
	AppVars     AppVariableStore
	Convs       ConversationStore
	Knowledge   Knowledge
	HTTP        HTTPDoer
	Workflows   WorkflowLoader
	History     HistorySink
	Checkpoints CheckpointStore
	Clock       Clock        // nil: time.Now
	Code        CodeRunner   // runs code nodes; nil: in-process, within Limits
	Python      PythonRunner // runs Python code nodes; nil: they fail validation saying how to enable them
	Limits      Limits
}

// Engine validates, compiles and runs workflows. It is safe for
// concurrent use; compiled workflows are cached by key.
type Engine struct {
	catalog *Catalog
	ports   Config
	limits  Limits
	now     Clock
	cache   *compileCache
	code    CodeRunner
}

// New returns an engine over cfg.
func New(cfg Config) *Engine {
	if cfg.Catalog == nil {
		cfg.Catalog = NewCatalog()
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	lim := cfg.Limits.withDefaults()
	if cfg.Code == nil {
		cfg.Code = newCodeRunner(lim)
	}
	return &Engine{catalog: cfg.Catalog, ports: cfg, limits: lim, now: cfg.Clock,
		cache: newCompileCache(lim.CacheSize), code: cfg.Code}
}

// Catalog returns the node types the engine knows.
func (e *Engine) Catalog() *Catalog { return e.catalog }

// Limits returns the limits in force.
func (e *Engine) Limits() Limits { return e.limits }

// CompileOptions say where a workflow lives, for the sub-workflows it
// loads.
type CompileOptions struct {
	WorkspaceID int64
	WorkflowID  int64
}

// Validate checks a definition: node types and their configs, edges and
// ports, cycles, reachability, references and their types, limits; and,
// when the engine has a WorkflowLoader and opts a workspace, the
// sub-workflows it runs. It returns a *ValidationError (matching
// errs.ErrInvalid) listing every problem, or nil.
func (e *Engine) Validate(ctx context.Context, def *Definition, opts CompileOptions) error {
	_, err := e.check(ctx, def, opts, nil, false)
	return err
}

// Compile checks and compiles a definition, or returns the compiled form
// cached under key. Keys must change when the definition does: use
// VersionKey for published versions and a draft revision for drafts. It
// returns a *ValidationError when the definition is invalid.
func (e *Engine) Compile(ctx context.Context, key string, def *Definition, opts CompileOptions) (*Compiled, error) {
	return e.cache.get(key, func() (*Compiled, error) { return e.compile(ctx, key, def, opts, nil) })
}

// CompileFunc is Compile for callers that load the definition only when
// key is not cached yet: a run of a cached version reads nothing.
func (e *Engine) CompileFunc(ctx context.Context, key string, load func() (*Definition, error), opts CompileOptions) (*Compiled, error) {
	return e.cache.get(key, func() (*Compiled, error) {
		def, err := load()
		if err != nil {
			return nil, err
		}
		return e.compile(ctx, key, def, opts, nil)
	})
}

// VersionKey is the cache key of a published version of a workflow, the
// one sub-workflow nodes use.
func VersionKey(workflowID, version int64) string {
	return fmt.Sprintf("wf:%d:v%d", workflowID, version)
}

// DraftKey is the cache key of a workflow's draft at a revision.
func DraftKey(workflowID, revision int64) string {
	return fmt.Sprintf("wf:%d:d%d", workflowID, revision)
}

// check runs the checker over def. stack lists the sub-workflows being
// compiled above this one.
func (e *Engine) check(ctx context.Context, def *Definition, opts CompileOptions, stack []string, compiling bool) (*graphInfo, error) {
	c := &checker{ctx: ctx, eng: e, opts: opts, all: map[string]*nodeInfo{}, stack: stack, compiling: compiling}
	if def == nil {
		c.fail("definition", "is required")
		return nil, c.err()
	}
	c.coze = def.Compat == CompatCoze
	g := c.checkGraph(def, nil, nil)
	return g, c.err()
}
