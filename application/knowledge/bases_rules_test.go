package knowledge_test

import (
	"context"
	"strings"
	"testing"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func TestCreateFixesTheEmbeddingModel(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.base(t, "  Handbook ", knowledge.FormatText)
	if b.Name != "Handbook" || b.EmbeddingModel != "embed" || b.Dimensions != 256 {
		t.Fatalf("created = %+v, want the default model with the dimensions its probe returned", b)
	}
	named, err := e.svc.Create(ctx, e.member, knowledgeapp.CreateInput{WorkspaceID: e.ws.ID, Name: "Named", EmbeddingModel: "embed-64"})
	mustNot(t, err)
	if named.Dimensions != 64 || named.CreatorID != e.member.UserID {
		t.Fatalf("named = %+v, want the model entry's dimensions", named)
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cases := []struct {
		name  string
		in    knowledgeapp.CreateInput
		field string
		text  string
	}{
		{"no name", knowledgeapp.CreateInput{WorkspaceID: e.ws.ID}, "name", "required"},
		{"long name", knowledgeapp.CreateInput{WorkspaceID: e.ws.ID, Name: strings.Repeat("n", 101)}, "name", "at most 100"},
		{"chat model", knowledgeapp.CreateInput{WorkspaceID: e.ws.ID, Name: "x", EmbeddingModel: "gpt"}, "embedding_model", "kind embedding"},
		{"format", knowledgeapp.CreateInput{WorkspaceID: e.ws.ID, Name: "x", Format: 7}, "format_type", "0 (text)"},
		{"max tokens", knowledgeapp.CreateInput{WorkspaceID: e.ws.ID, Name: "x",
			ChunkStrategy: &knowledge.ChunkStrategy{MaxTokens: 20}}, "chunk_strategy.max_tokens", "from 100 to 5000"},
		{"no workspace", knowledgeapp.CreateInput{Name: "x"}, "workspace_id", "required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.svc.Create(ctx, e.owner, c.in)
			wantField(t, err, c.field, c.text)
		})
	}
	_, err := e.svc.Create(ctx, e.stranger, knowledgeapp.CreateInput{WorkspaceID: e.ws.ID, Name: "x"})
	wantErr(t, err, errs.ErrForbidden, "")
	limited := e.owner
	limited.Scopes = []string{identity.ScopeBot}
	_, err = e.svc.Create(ctx, limited, knowledgeapp.CreateInput{WorkspaceID: e.ws.ID, Name: "x"})
	wantErr(t, err, errs.ErrForbidden, `"knowledge" scope`)
}

func TestListUpdateDeleteBases(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	hb := e.base(t, "Handbook", knowledge.FormatText)
	e.base(t, "Prices", knowledge.FormatTable)
	e.add(t, hb.ID, knowledgeapp.DocumentInput{Name: "hb.txt", Text: handbook})

	list, total, err := e.svc.List(ctx, e.member, e.ws.ID, knowledgeapp.ListInput{Filter: knowledge.ListFilter{Name: "hand"}})
	mustNot(t, err)
	if total != 1 || list[0].ID != hb.ID || list[0].Counts.Documents != 1 || list[0].Counts.Chunks != 4 {
		t.Fatalf("list = %d %+v", total, list)
	}
	_, _, err = e.svc.List(ctx, e.owner, e.ws.ID, knowledgeapp.ListInput{Page: identity.Page{Size: 500}})
	wantField(t, err, "page_size", "between 1 and 100")
	_, _, err = e.svc.List(ctx, e.stranger, e.ws.ID, knowledgeapp.ListInput{})
	wantErr(t, err, errs.ErrForbidden, "")

	name := "Staff handbook"
	got, err := e.svc.Update(ctx, e.member, hb.ID, knowledgeapp.Patch{Name: &name})
	mustNot(t, err)
	if got.Name != name {
		t.Fatalf("renamed = %+v", got)
	}
	other := "embed-64"
	_, err = e.svc.Update(ctx, e.owner, hb.ID, knowledgeapp.Patch{EmbeddingModel: &other})
	wantField(t, err, "embedding_model", "create a new knowledge base")
	_, err = e.svc.Update(ctx, e.stranger, hb.ID, knowledgeapp.Patch{Name: &name})
	wantErr(t, err, errs.ErrNotFound, "knowledge base")

	wantErr(t, e.svc.Delete(ctx, e.member, hb.ID), errs.ErrForbidden, "creator or an admin")
	mustNot(t, e.svc.Delete(ctx, e.owner, hb.ID))
	if n := len(e.index.chunks); n != 0 {
		t.Fatalf("%d chunks left in the index after the knowledge base was deleted", n)
	}
	_, err = e.svc.Get(ctx, e.owner, hb.ID)
	wantErr(t, err, errs.ErrNotFound, "knowledge base")
}
