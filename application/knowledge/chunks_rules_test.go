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

func TestChunksByHand(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "a", Text: handbook})
	d := docs[0].ID

	list, total, err := e.svc.Chunks(ctx, e.member, kb.ID, d, identity.Page{Number: 2, Size: 3})
	mustNot(t, err)
	if total != 4 || len(list) != 1 || list[0].Position != 3 || list[0].Vector != nil {
		t.Fatalf("page 2 of 3 = %d %+v", total, list)
	}
	added, err := e.svc.AddChunk(ctx, e.member, kb.ID, d, "Parking: the car park is behind the building.")
	mustNot(t, err)
	if added.Position != 4 || e.doc(t, d).Chunks != 5 {
		t.Fatalf("added = %+v, document chunks %d", added, e.doc(t, d).Chunks)
	}
	hits, err := e.svc.Search(ctx, e.member, kb.ID, "where is the car park", knowledge.Retrieval{TopK: 1})
	mustNot(t, err)
	if len(hits) != 1 || hits[0].Chunk.ID != added.ID {
		t.Fatalf("the added chunk is not found by meaning: %q", texts(hits))
	}

	edited, err := e.svc.EditChunk(ctx, e.member, kb.ID, added.ID, "Bicycles: the bike shed is next to the gate.")
	mustNot(t, err)
	hits, err = e.svc.Search(ctx, e.member, kb.ID, "bike shed", knowledge.Retrieval{TopK: 1})
	mustNot(t, err)
	if len(hits) != 1 || hits[0].Chunk.ID != edited.ID {
		t.Fatalf("the edited chunk was not embedded again: %+v", hits)
	}

	mustNot(t, e.svc.DeleteChunk(ctx, e.member, kb.ID, added.ID))
	if _, err := e.index.GetChunk(ctx, e.ws.ID, kb.ID, added.ID); err == nil || e.doc(t, d).Chunks != 4 {
		t.Fatal("the deleted chunk is still there, or still counted")
	}
	wantErr(t, e.svc.DeleteChunk(ctx, e.member, kb.ID, added.ID), errs.ErrNotFound, "chunk")
}

func TestChunkEditsAreChecked(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "a", Text: handbook})
	_, err := e.svc.AddChunk(ctx, e.owner, kb.ID, docs[0].ID, " ")
	wantField(t, err, "text", "required")
	_, err = e.svc.AddChunk(ctx, e.owner, kb.ID, docs[0].ID, strings.Repeat("x", 10001))
	wantField(t, err, "text", "at most 10000")
	_, err = e.svc.AddChunk(ctx, e.stranger, kb.ID, docs[0].ID, "x")
	wantErr(t, err, errs.ErrNotFound, "document")
	list, _, err := e.svc.Chunks(ctx, e.owner, kb.ID, docs[0].ID, identity.Page{})
	mustNot(t, err)
	_, err = e.svc.EditChunk(ctx, e.stranger, kb.ID, list[0].ID, "x")
	wantErr(t, err, errs.ErrNotFound, "knowledge base")
	other := e.base(t, "Other", knowledge.FormatText)
	_, err = e.svc.EditChunk(ctx, e.owner, other.ID, list[0].ID, "x")
	wantErr(t, err, errs.ErrNotFound, "chunk")

	_, err = e.svc.Refresh(ctx, e.owner, kb.ID, docs[0].ID)
	mustNot(t, err)
	_, err = e.svc.EditChunk(ctx, e.owner, kb.ID, list[0].ID, "x")
	wantErr(t, err, errs.ErrConflict, "being indexed")
	_, err = e.svc.Refresh(ctx, e.owner, kb.ID, docs[0].ID)
	wantErr(t, err, errs.ErrConflict, "being indexed")
}

func TestTableKnowledgeIndexesRows(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Prices", knowledge.FormatTable)
	docs := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "prices.csv", Content: []byte("fruit,price\napple,3\npear,5\n")})
	list, total, err := e.svc.Chunks(ctx, e.owner, kb.ID, docs[0].ID, identity.Page{})
	mustNot(t, err)
	if total != 2 || list[1].Row["fruit"] != "pear" || list[1].Row["price"] != "5" {
		t.Fatalf("rows = %+v", list)
	}
}
