package modelreg_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// fakeProber answers Probe with probe and remembers the models it got.
type fakeProber struct {
	probe func(ctx context.Context, m llm.Model) (string, int, int, error)
	got   []llm.Model
}

func (f *fakeProber) Probe(ctx context.Context, m llm.Model) (string, int, int, error) {
	f.got = append(f.got, m)
	if f.probe == nil {
		return "pong", 5, 1, nil
	}
	return f.probe(ctx, m)
}

// fileModels are two models as LoadModels returns them.
func fileModels() []llm.Model {
	return []llm.Model{
		{ID: "zeta", Name: "Zeta", Provider: llm.ProviderOpenAI, BaseURL: "http://zeta.example/v1", APIKey: "sk-zeta-from-env",
			APIKeyEnv: "ZETA_KEY", Model: "zeta-1", Enabled: true, Source: llm.SourceFile},
		{ID: "alpha", Name: "Alpha", Provider: llm.ProviderGemini, APIKey: "sk-alpha-inline", Model: "gemini-x",
			Enabled: true, Source: llm.SourceFile},
	}
}

// newRegistry returns a registry over a fresh SQLite store holding one
// model, "mid", and the file models.
func newRegistry(t *testing.T, prober modelreg.Prober) (*modelreg.Registry, llm.ModelStore) {
	t.Helper()
	ctx := context.Background()
	box, err := secret.NewBox(bytes.Repeat([]byte{3}, secret.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db"), Cipher: box})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	r := modelreg.New(db.Models(), fileModels(), prober)
	if _, err := r.Create(ctx, llm.Model{ID: "mid", Provider: llm.ProviderOpenAI, APIKey: "sk-stored", Model: "m", Enabled: true}); err != nil {
		t.Fatalf("create mid: %v", err)
	}
	return r, db.Models()
}

func ids(ms []llm.Model) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// TestListMergesFileAndStoredModels checks the order, the source and that
// the registry, unlike the API, keeps the keys.
func TestListMergesFileAndStoredModels(t *testing.T) {
	ctx := context.Background()
	r, _ := newRegistry(t, &fakeProber{})
	ms, err := r.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"alpha", "mid", "zeta"}, ids(ms)); diff != "" {
		t.Fatalf("List order (-want +got):\n%s", diff)
	}
	want := map[string]struct{ source, key, name string }{
		"alpha": {llm.SourceFile, "sk-alpha-inline", "Alpha"},
		"mid":   {llm.SourceAdmin, "sk-stored", "mid"},
		"zeta":  {llm.SourceFile, "sk-zeta-from-env", "Zeta"},
	}
	for _, m := range ms {
		w := want[m.ID]
		if m.Source != w.source || m.APIKey != w.key || m.Name != w.name {
			t.Errorf("%s: source %q key %q name %q; want %q, %q, %q", m.ID, m.Source, m.APIKey, m.Name, w.source, w.key, w.name)
		}
	}
	z, err := r.Get(ctx, "zeta")
	if err != nil || z.APIKey != "sk-zeta-from-env" || z.APIKeyEnv != "ZETA_KEY" || z.Source != llm.SourceFile {
		t.Fatalf("Get(zeta) = %+v, %v", z, err)
	}
	_, err = r.Get(ctx, "nope")
	if !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("Get(nope) = %v, want ErrNotFound", err)
	}
}

// TestWriteRules checks what the registry refuses, and that a refusal
// changes no model.
func TestWriteRules(t *testing.T) {
	ctx := context.Background()
	name := "renamed"
	badURL := "ftp://x"
	cases := []struct {
		name  string
		act   func(r *modelreg.Registry) error
		want  error
		field string
	}{
		{"create with a file model's id", func(r *modelreg.Registry) error {
			_, err := r.Create(ctx, llm.Model{ID: "zeta", Provider: llm.ProviderOpenAI, Model: "m"})
			return err
		}, errs.ErrConflict, ""},
		{"create with a stored model's id", func(r *modelreg.Registry) error {
			_, err := r.Create(ctx, llm.Model{ID: "mid", Provider: llm.ProviderOpenAI, Model: "m"})
			return err
		}, errs.ErrConflict, ""},
		{"update a file model", func(r *modelreg.Registry) error {
			_, err := r.Update(ctx, "zeta", modelreg.Patch{Name: &name})
			return err
		}, errs.ErrConflict, ""},
		{"delete a file model", func(r *modelreg.Registry) error { return r.Delete(ctx, "alpha") }, errs.ErrConflict, ""},
		{"create with an unknown provider", func(r *modelreg.Registry) error {
			_, err := r.Create(ctx, llm.Model{ID: "new", Provider: "anthropic", Model: "m"})
			return err
		}, errs.ErrInvalid, "provider"},
		{"create without a provider", func(r *modelreg.Registry) error {
			_, err := r.Create(ctx, llm.Model{ID: "new", Model: "m"})
			return err
		}, errs.ErrInvalid, "provider"},
		{"create with a bad id", func(r *modelreg.Registry) error {
			_, err := r.Create(ctx, llm.Model{ID: "no spaces", Provider: llm.ProviderOpenAI, Model: "m"})
			return err
		}, errs.ErrInvalid, "id"},
		{"create without the provider's model name", func(r *modelreg.Registry) error {
			_, err := r.Create(ctx, llm.Model{ID: "new", Provider: llm.ProviderOpenAI})
			return err
		}, errs.ErrInvalid, "model"},
		{"update with a bad base URL", func(r *modelreg.Registry) error {
			_, err := r.Update(ctx, "mid", modelreg.Patch{Name: &name, BaseURL: &badURL})
			return err
		}, errs.ErrInvalid, "base_url"},
		{"update an unknown model", func(r *modelreg.Registry) error {
			_, err := r.Update(ctx, "nope", modelreg.Patch{Name: &name})
			return err
		}, errs.ErrNotFound, ""},
		{"delete an unknown model", func(r *modelreg.Registry) error { return r.Delete(ctx, "nope") }, errs.ErrNotFound, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := newRegistry(t, &fakeProber{})
			before, err := r.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.act(r)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want one matching %q", err, tc.want)
			}
			if tc.field != "" {
				var fe *errs.FieldError
				if !errors.As(err, &fe) || fe.Field != tc.field {
					t.Fatalf("error = %v, want a field error naming %q", err, tc.field)
				}
			}
			after, err := r.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Fatalf("models after a refused change (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStoredModelsAreWritable is the allowed side of TestWriteRules.
func TestStoredModelsAreWritable(t *testing.T) {
	ctx := context.Background()
	r, store := newRegistry(t, &fakeProber{})
	m, err := r.Create(ctx, llm.Model{ID: "new", Provider: llm.ProviderGemini, Model: "g", Source: llm.SourceFile})
	if err != nil {
		t.Fatal(err)
	}
	if m.Source != llm.SourceAdmin || m.Name != "new" {
		t.Fatalf("created %+v; want source admin and the id as name", m)
	}
	name, key := "New one", "sk-rotated"
	if _, err := r.Update(ctx, "new", modelreg.Patch{Name: &name, APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	stored, err := store.GetModel(ctx, "new")
	if err != nil || stored.Name != name || stored.APIKey != key || stored.Provider != llm.ProviderGemini {
		t.Fatalf("stored after update = %+v, %v", stored, err)
	}
	if err := r.Delete(ctx, "new"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetModel(ctx, "new"); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("deleted model still stored: %v", err)
	}
}

// TestTestReportsFailuresAsResults checks that a failing model is a result,
// and only an unknown id an error.
func TestTestReportsFailuresAsResults(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		id    string
		probe func(ctx context.Context, m llm.Model) (string, int, int, error)
		want  modelreg.TestResult
	}{
		{"a file model answers", "zeta", nil, modelreg.TestResult{OK: true, Reply: "pong", InputTokens: 5, OutputTokens: 1}},
		{"a stored model answers", "mid", nil, modelreg.TestResult{OK: true, Reply: "pong", InputTokens: 5, OutputTokens: 1}},
		{"the model fails", "mid", func(context.Context, llm.Model) (string, int, int, error) {
			return "", 0, 0, errors.New("the provider answered HTTP 401: bad key")
		}, modelreg.TestResult{Error: "the provider answered HTTP 401: bad key"}},
		{"the model is too slow", "zeta", func(context.Context, llm.Model) (string, int, int, error) {
			return "", 0, 0, context.DeadlineExceeded
		}, modelreg.TestResult{Error: "the model did not answer within 30s"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakeProber{probe: tc.probe}
			r, _ := newRegistry(t, p)
			got, err := r.Test(ctx, tc.id)
			if err != nil {
				t.Fatalf("Test returned an error: %v", err)
			}
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(modelreg.TestResult{}, "Latency")); diff != "" {
				t.Fatalf("result (-want +got):\n%s", diff)
			}
			if len(p.got) != 1 || p.got[0].ID != tc.id || p.got[0].APIKey == "" {
				t.Fatalf("prober got %+v; want model %s with its key", p.got, tc.id)
			}
		})
	}

	t.Run("an unknown id is not found", func(t *testing.T) {
		p := &fakeProber{}
		r, _ := newRegistry(t, p)
		got, err := r.Test(ctx, "nope")
		if !errors.Is(err, errs.ErrNotFound) || got != nil {
			t.Fatalf("Test(nope) = %+v, %v; want ErrNotFound", got, err)
		}
		if len(p.got) != 0 {
			t.Fatal("the prober was called for an unknown model")
		}
	})
}
