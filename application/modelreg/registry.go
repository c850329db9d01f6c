// Package modelreg is the model registry: the models of PERGOLA_MODELS_FILE
// (read-only) together with those administrators manage through the API.
package modelreg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// Prober sends one short request to a model, for "test this model".
type Prober interface {
	Probe(ctx context.Context, m llm.Model) (reply string, inputTokens, outputTokens int, err error)
}

// Registry answers which models exist and manages the stored ones.
type Registry struct {
	store    llm.ModelStore
	files    map[string]llm.Model
	prober   Prober
	embedder Embedder // nil: embedding models cannot be tested
	reranker Reranker // nil: rerank models cannot be tested
}

// New returns a registry over the stored models and those from the file;
// prober tests chat models, options add what tests the other kinds.
func New(store llm.ModelStore, fromFile []llm.Model, prober Prober, opts ...Option) *Registry {
	files := make(map[string]llm.Model, len(fromFile))
	for _, m := range fromFile {
		m.Source = llm.SourceFile
		files[m.ID] = m
	}
	r := &Registry{store: store, files: files, prober: prober}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Get returns a model by id, with its key; ErrNotFound when unknown.
func (r *Registry) Get(ctx context.Context, id string) (*llm.Model, error) {
	if m, ok := r.files[id]; ok {
		return &m, nil
	}
	return r.store.GetModel(ctx, id)
}

// List returns every model, ordered by id.
func (r *Registry) List(ctx context.Context) ([]llm.Model, error) {
	stored, err := r.store.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := make([]llm.Model, 0, len(stored)+len(r.files))
	for _, m := range r.files {
		out = append(out, m)
	}
	for _, m := range stored {
		if _, shadowed := r.files[m.ID]; !shadowed { // the file wins; see Get
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b llm.Model) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Create stores a new model. The id must not be taken, by the file
// either, and at most one model is the default embedding model (else
// errs.ErrInvalid naming default).
func (r *Registry) Create(ctx context.Context, m llm.Model) (*llm.Model, error) {
	m.Source = llm.SourceAdmin
	if err := m.Validate(""); err != nil {
		return nil, err
	}
	if err := r.checkDefault(ctx, &m); err != nil {
		return nil, err
	}
	if _, ok := r.files[m.ID]; ok {
		return nil, errs.Conflict("model id %q is defined in PERGOLA_MODELS_FILE", m.ID)
	}
	if err := r.store.CreateModel(ctx, &m); err != nil {
		return nil, fmt.Errorf("create model: %w", err)
	}
	return &m, nil
}

// Patch carries optional changes to a stored model.
type Patch struct {
	Name          *string
	BaseURL       *string
	APIKey        *string
	Model         *string
	Capabilities  *llm.Capabilities
	ContextWindow *int
	Enabled       *bool
	Kind          *string
	Dimensions    *int
	Default       *bool
}

// Update changes a stored model; file models answer ErrConflict, and a
// second default embedding model errs.ErrInvalid naming default.
func (r *Registry) Update(ctx context.Context, id string, p Patch) (*llm.Model, error) {
	if err := r.writable(id); err != nil {
		return nil, err
	}
	if p.Default != nil && *p.Default {
		if err := r.checkDefault(ctx, &llm.Model{ID: id, Default: true}); err != nil {
			return nil, err
		}
	}
	return r.store.UpdateModel(ctx, id, func(m *llm.Model) error {
		setIf(&m.Name, p.Name)
		setIf(&m.BaseURL, p.BaseURL)
		setIf(&m.APIKey, p.APIKey)
		setIf(&m.Model, p.Model)
		setIf(&m.Capabilities, p.Capabilities)
		setIf(&m.ContextWindow, p.ContextWindow)
		setIf(&m.Enabled, p.Enabled)
		setIf(&m.Kind, p.Kind)
		setIf(&m.Dimensions, p.Dimensions)
		setIf(&m.Default, p.Default)
		return m.Validate("")
	})
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Delete removes a stored model; file models answer ErrConflict.
func (r *Registry) Delete(ctx context.Context, id string) error {
	if err := r.writable(id); err != nil {
		return err
	}
	return r.store.DeleteModel(ctx, id)
}

func (r *Registry) writable(id string) error {
	if _, ok := r.files[id]; ok {
		return errs.Conflict("model %q is defined in PERGOLA_MODELS_FILE; change it there", id)
	}
	return nil
}

// TestResult is the outcome of "test this model".
type TestResult struct {
	OK           bool
	Reply        string
	Error        string
	Latency      time.Duration
	InputTokens  int
	OutputTokens int
	Dimensions   int // an embedding model's vector length
}

// Test sends one short request to the model and reports what happened: a
// chat model answers a prompt, an embedding model embeds a word (Dimensions
// says the vector's length), a rerank model ranks two texts. A failing
// model is a result (OK false), not an error; an unknown id is.
func (r *Registry) Test(ctx context.Context, id string) (*TestResult, error) {
	m, err := r.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	res := &TestResult{}
	err = r.try(ctx, *m, res)
	res.OK, res.Latency = err == nil, time.Since(start)
	if err != nil {
		res.Error = err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			res.Error = "the model did not answer within 30s"
		}
	}
	return res, nil
}

// try makes the test call of m's kind, filling res.
func (r *Registry) try(ctx context.Context, m llm.Model, res *TestResult) error {
	switch m.KindOrChat() {
	case llm.KindEmbedding:
		return r.testEmbedding(ctx, m, res)
	case llm.KindRerank:
		return r.testRerank(ctx, m, res)
	}
	var err error
	res.Reply, res.InputTokens, res.OutputTokens, err = r.prober.Probe(ctx, m)
	return err
}
