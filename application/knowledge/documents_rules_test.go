package knowledge_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func TestAddedDocumentsAnswerAtOnceAndIndexInTheWorker(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	up, err := e.files.Save(ctx, e.ws.ID, e.owner.UserID, "notes.md", []byte("Parking is behind the building.\n\nBikes go in the basement."))
	mustNot(t, err)
	e.pages.body["https://example.com/faq"] = "The wifi password is on the fridge."
	docs, err := e.svc.AddDocuments(ctx, e.owner, kb.ID, []knowledgeapp.DocumentInput{
		{Name: "handbook", Text: handbook},
		{FileID: up.ID},
		{Name: "rules.txt", Content: []byte("No dogs.\n\nNo smoking.")},
		{URL: "https://example.com/faq"},
	})
	mustNot(t, err)
	for _, d := range docs {
		if d.Status != knowledge.StatusProcessing {
			t.Fatalf("added %s with status %v, want processing", d.Name, d.Status)
		}
	}
	if docs[1].Name != "notes.md" || docs[1].FileType != "md" || docs[2].FileID == 0 || docs[3].Name != "example.com/faq" {
		t.Fatalf("documents = %+v", docs)
	}
	e.work(t)
	want := map[string]int64{"handbook": 4, "notes.md": 2, "rules.txt": 2, "example.com/faq": 1}
	for _, d := range docs {
		got := e.doc(t, d.ID)
		if got.Status != knowledge.StatusReady || got.Chunks != want[d.Name] || got.Progress != 100 {
			t.Errorf("%s after indexing = status %v, %d chunks, %d%%; want ready with %d", d.Name, got.Status, got.Chunks, got.Progress, want[d.Name])
		}
		if n := len(e.index.docChunks(e.ws.ID, kb.ID, d.ID)); int64(n) != want[d.Name] {
			t.Errorf("%s has %d chunks in the index, want %d", d.Name, n, want[d.Name])
		}
	}
	// 9 chunks embedded 2 at a time, plus the probe at creation.
	if e.embed.calls != 1+2+1+1+1 {
		t.Errorf("embedding calls = %d, want one per batch of 2 per document and the probe", e.embed.calls)
	}
}

func TestAddDocumentsRefusesBadInputBeforeStoringAnything(t *testing.T) {
	e := newEnv(t, func(d *knowledgeapp.Deps) { d.Limits = knowledge.Limits{FileBytes: 100, DocumentsPerBase: 3} })
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	table := e.base(t, "Prices", knowledge.FormatTable)
	other, err := e.files.Save(ctx, e.other.ID, e.stranger.UserID, "secret.txt", []byte("secret"))
	mustNot(t, err)
	cases := []struct {
		name  string
		kb    int64
		in    knowledgeapp.DocumentInput
		field string
		text  string
	}{
		{"no source", kb.ID, knowledgeapp.DocumentInput{Name: "x"}, "documents[0]", "exactly one source"},
		{"two sources", kb.ID, knowledgeapp.DocumentInput{Name: "x", Text: "a", URL: "https://e.com"}, "documents[0]", "exactly one source"},
		{"bad url", kb.ID, knowledgeapp.DocumentInput{URL: "file:///etc/passwd"}, "documents[0].url", "http or https"},
		{"file of another workspace", kb.ID, knowledgeapp.DocumentInput{FileID: other.ID}, "documents[0].file_id", "upload it"},
		{"type of another format", table.ID, knowledgeapp.DocumentInput{Name: "a", Text: "x"}, "documents[0].file_type", "csv, xlsx"},
		{"too large", kb.ID, knowledgeapp.DocumentInput{Name: "a", Text: strings.Repeat("x", 101)}, "documents[0]", "the limit is 100 bytes"},
		{"no file type", kb.ID, knowledgeapp.DocumentInput{Name: "a", Content: []byte("x")}, "documents[0].file_type", "required"},
		{"rule on text", kb.ID, knowledgeapp.DocumentInput{Name: "a", Text: "x", UpdateRule: knowledge.UpdateRule{Auto: true, IntervalHours: 1}},
			"documents[0].update_rule", "only web pages"},
		{"strategy", kb.ID, knowledgeapp.DocumentInput{Name: "a", Text: "x", Strategy: &knowledge.ChunkStrategy{Type: 9}},
			"documents[0].chunk_strategy.chunk_type", "0 (automatic)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.svc.AddDocuments(ctx, e.owner, c.kb, []knowledgeapp.DocumentInput{c.in})
			wantField(t, err, c.field, c.text)
		})
	}
	many := make([]knowledgeapp.DocumentInput, 4)
	for i := range many {
		many[i] = knowledgeapp.DocumentInput{Name: "d", Text: "x"}
	}
	_, err = e.svc.AddDocuments(ctx, e.owner, kb.ID, many)
	wantField(t, err, "documents", "limit of 3")
	docs, total, err := e.svc.ListDocuments(ctx, e.owner, kb.ID, identity.Page{})
	mustNot(t, err)
	if total != 0 || len(e.queue.take()) != 0 || len(e.files.files) != 1 {
		t.Fatalf("refused input left %d documents (%v), queued messages or files", total, docs)
	}
	_, err = e.svc.AddDocuments(ctx, e.stranger, kb.ID, many[:1])
	wantErr(t, err, errs.ErrNotFound, "knowledge base")
}

func TestFailuresSayWhatToDo(t *testing.T) {
	e := newEnv(t, func(d *knowledgeapp.Deps) { d.Limits = knowledge.Limits{ChunksPerDocument: 3} })
	kb := e.base(t, "Handbook", knowledge.FormatText)
	bad := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "scan.pdf", Content: []byte("%PDF-broken")})
	long := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "long", Text: handbook})
	gone := e.add(t, kb.ID, knowledgeapp.DocumentInput{URL: "https://example.com/missing"})
	e.embed.fail = errors.New("401 invalid api key")
	broken := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "ok", Text: "fine text"})
	for _, c := range []struct {
		doc  knowledge.Document
		text string
	}{
		{bad[0], "could not be read: file: this is not a valid pdf file"},
		{long[0], "makes 4 chunks; at most 3 are allowed"},
		{gone[0], "https://example.com/missing could not be fetched: 404"},
		{broken[0], `embedding model "embed" failed: 401 invalid api key`},
	} {
		got := e.doc(t, c.doc.ID)
		if got.Status != knowledge.StatusFailed || !strings.Contains(got.Reason, c.text) {
			t.Errorf("%s = %v %q, want failed mentioning %q", got.Name, got.Status, got.Reason, c.text)
		}
		if n := len(e.index.docChunks(e.ws.ID, kb.ID, c.doc.ID)); n != 0 {
			t.Errorf("%s failed but left %d chunks", got.Name, n)
		}
	}
	e.embed.fail = nil
	again, err := e.svc.Refresh(context.Background(), e.owner, kb.ID, broken[0].ID)
	mustNot(t, err)
	if again.Status != knowledge.StatusProcessing || again.Reason != "" {
		t.Fatalf("refreshed = %+v", again)
	}
	e.work(t)
	if got := e.doc(t, broken[0].ID); got.Status != knowledge.StatusReady || got.Chunks != 1 {
		t.Fatalf("after the model was fixed and the document refreshed: %+v", got)
	}
}

func TestManageDocuments(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "a", Text: handbook}, knowledgeapp.DocumentInput{Name: "b", Text: "bees"})
	name := "renamed"
	got, err := e.svc.UpdateDocument(ctx, e.member, 0, docs[0].ID, knowledgeapp.DocumentPatch{Name: &name})
	mustNot(t, err)
	if got.Name != name {
		t.Fatalf("renamed = %+v", got)
	}
	_, err = e.svc.UpdateDocument(ctx, e.stranger, 0, docs[0].ID, knowledgeapp.DocumentPatch{Name: &name})
	wantErr(t, err, errs.ErrNotFound, "document")
	other := e.base(t, "Other", knowledge.FormatText)
	_, err = e.svc.UpdateDocument(ctx, e.owner, other.ID, docs[0].ID, knowledgeapp.DocumentPatch{Name: &name})
	wantErr(t, err, errs.ErrNotFound, "document")

	wantErr(t, e.svc.DeleteDocuments(ctx, e.owner, kb.ID, []int64{docs[0].ID, 12345}), errs.ErrNotFound, "document 12345")
	if e.doc(t, docs[0].ID) == nil {
		t.Fatal("a refused delete removed a document")
	}
	mustNot(t, e.svc.DeleteDocuments(ctx, e.owner, kb.ID, []int64{docs[0].ID}))
	if n := len(e.index.docChunks(e.ws.ID, kb.ID, docs[0].ID)); n != 0 {
		t.Fatalf("a deleted document left %d chunks", n)
	}
	n, err := e.svc.Remove(ctx, e.other.ID, kb.ID, []int64{docs[1].ID})
	mustNot(t, err)
	if n != 0 {
		t.Fatal("a workflow of another workspace removed a document")
	}
	n, err = e.svc.Remove(ctx, e.ws.ID, kb.ID, []int64{docs[1].ID})
	mustNot(t, err)
	_, total, _ := e.svc.ListDocuments(ctx, e.owner, kb.ID, identity.Page{})
	if n != 1 || total != 0 {
		t.Fatalf("removed %d, %d left", n, total)
	}
}

func TestWriteAddsForWorkflowsInTheirWorkspaceOnly(t *testing.T) {
	e := newEnv(t)
	kb := e.base(t, "Handbook", knowledge.FormatText)
	_, err := e.svc.Write(context.Background(), knowledgeapp.WriteRequest{WorkspaceID: e.other.ID, KnowledgeID: kb.ID,
		Document: knowledgeapp.DocumentInput{Name: "x", Text: "y"}})
	wantErr(t, err, errs.ErrNotFound, "knowledge base")
	d, err := e.svc.Write(context.Background(), knowledgeapp.WriteRequest{WorkspaceID: e.ws.ID, KnowledgeID: kb.ID, UserID: e.owner.UserID,
		Document: knowledgeapp.DocumentInput{Name: "x", Text: "the answer is 42"}})
	mustNot(t, err)
	e.work(t)
	if got := e.doc(t, d.ID); got.Status != knowledge.StatusReady {
		t.Fatalf("written document = %+v", got)
	}
}

func TestNamesAndWaitIndexedForBotsAndWorkflows(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	theirs, err := e.svc.Create(ctx, e.stranger, knowledgeapp.CreateInput{WorkspaceID: e.other.ID, Name: "Theirs"})
	mustNot(t, err)
	names, err := e.svc.Names(ctx, e.ws.ID, []int64{kb.ID, theirs.ID, 424242})
	mustNot(t, err)
	if len(names) != 1 || names[kb.ID] != "Handbook" {
		t.Fatalf("names = %v; want only the workspace's own knowledge base", names)
	}
	ok, err := e.svc.Write(ctx, knowledgeapp.WriteRequest{WorkspaceID: e.ws.ID, KnowledgeID: kb.ID, Document: knowledgeapp.DocumentInput{Name: "a", Text: "fine"}})
	mustNot(t, err)
	bad, err := e.svc.Write(ctx, knowledgeapp.WriteRequest{WorkspaceID: e.ws.ID, KnowledgeID: kb.ID, Document: knowledgeapp.DocumentInput{Name: "b.pdf", Content: []byte("x")}})
	mustNot(t, err)
	e.work(t)
	if d, err := e.svc.WaitIndexed(ctx, e.ws.ID, ok.ID); err != nil || d.Status != knowledge.StatusReady {
		t.Fatalf("wait for a ready document = %v, %v", d, err)
	}
	_, err = e.svc.WaitIndexed(ctx, e.ws.ID, bad.ID)
	wantErr(t, err, errs.ErrInvalid, "could not be indexed: the pdf document could not be read")
	_, err = e.svc.WaitIndexed(ctx, e.other.ID, ok.ID)
	wantErr(t, err, errs.ErrNotFound, "document")
}
