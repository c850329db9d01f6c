package main

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// baseMap is a knowledge.BaseStore of a few bases, for GetBase.
type baseMap map[int64]knowledge.Base

func (m baseMap) GetBase(_ context.Context, id int64) (*knowledge.Base, error) {
	b, ok := m[id]
	if !ok {
		return nil, errs.NotFound("knowledge base", "x")
	}
	return &b, nil
}
func (baseMap) CreateBase(context.Context, *knowledge.Base) error { return nil }
func (baseMap) ListBases(context.Context, int64, knowledge.ListFilter, identity.Page) ([]knowledge.Base, int64, error) {
	return nil, 0, nil
}
func (baseMap) UpdateBase(context.Context, int64, int64, func(*knowledge.Base) error) (*knowledge.Base, error) {
	return nil, nil
}
func (baseMap) DeleteBase(context.Context, int64, int64) error { return nil }

func TestBotKnowledgeNamesOnlyTheWorkspaces(t *testing.T) {
	k := botKnowledge{bases: baseMap{1: {ID: 1, WorkspaceID: 7, Name: "Garden"}, 2: {ID: 2, WorkspaceID: 8, Name: "Theirs"}}}
	got, err := k.Names(context.Background(), 7, []int64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[int64]string{1: "Garden"}, got); d != "" {
		t.Fatalf("names (-want +got):\n%s", d)
	}
}
