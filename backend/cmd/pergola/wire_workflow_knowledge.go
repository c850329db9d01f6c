package main

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/domain/llm"
	wf "github.com/pergola-ai/pergola/workflow"
)

// workflowKnowledge is the workflow engine's Knowledge port over the
// knowledge service: knowledge nodes and llm nodes with knowledge act
// inside the run's workspace, with no caller to check (the run was
// checked when it started).
type workflowKnowledge struct {
	svc *knowledgeapp.Service
	// docs reads a written document's state while the writer node waits
	// for its indexing.
	docs knowledge.DocumentStore
	// models finds the rerank model of a node asking for rerank.
	models rerankModels
	// poll is the pause between two looks at a document being indexed.
	poll time.Duration
}

// rerankModels lists the models of a kind; the model registry is one.
type rerankModels interface {
	ByKind(ctx context.Context, kind string) ([]llm.Model, error)
}

// newWorkflowKnowledge returns the port.
func newWorkflowKnowledge(svc *knowledgeapp.Service, docs knowledge.DocumentStore, models rerankModels) wf.Knowledge {
	return workflowKnowledge{svc: svc, docs: docs, models: models, poll: 100 * time.Millisecond}
}

// rerankModel is the platform's rerank model: the first enabled model of
// kind rerank, "" (no rerank, as Coze without a reranker) when there is
// none.
func (k workflowKnowledge) rerankModel(ctx context.Context) (string, error) {
	models, err := k.models.ByKind(ctx, llm.KindRerank)
	if err != nil {
		return "", fmt.Errorf("rerank model: %w", err)
	}
	for _, m := range models {
		if m.Enabled {
			return m.ID, nil
		}
	}
	return "", nil
}

// Retrieve recalls through the service's Recall: knowledge bases that do
// not exist in the workspace are skipped, as a bot's are.
func (k workflowKnowledge) Retrieve(ctx context.Context, q wf.KnowledgeQuery) ([]wf.KnowledgeChunk, error) {
	r := knowledge.Retrieval{Strategy: strategyOf(q.Strategy), TopK: q.TopK, MinScore: q.MinScore, Rewrite: q.Rewrite}
	if q.Rerank {
		var err error
		if r.RerankModel, err = k.rerankModel(ctx); err != nil {
			return nil, err
		}
	}
	history := make([]string, 0, len(q.History))
	for _, m := range q.History {
		history = append(history, m.Content)
	}
	recalled, err := k.svc.Recall(ctx, knowledgeapp.RecallQuery{WorkspaceID: q.Scope.WorkspaceID,
		KnowledgeIDs: q.KnowledgeIDs, Query: q.Query, History: history, Retrieval: r})
	if err != nil {
		return nil, err
	}
	out := make([]wf.KnowledgeChunk, len(recalled))
	for i, rc := range recalled {
		out[i] = wf.KnowledgeChunk{KnowledgeID: rc.Chunk.KnowledgeID, DocumentID: rc.Chunk.DocumentID,
			DocumentName: rc.DocumentName, Text: rc.Chunk.Text, Score: rc.Score}
	}
	return out, nil
}

func strategyOf(s wf.KnowledgeStrategy) knowledge.Strategy {
	switch s {
	case wf.StrategyHybrid:
		return knowledge.StrategyHybrid
	case wf.StrategyFullText:
		return knowledge.StrategyFullText
	}
	return knowledge.StrategySemantic
}

// AddDocument writes the fetched file as a document of the knowledge base
// and waits until it is indexed (or failed), within the node's time.
func (k workflowKnowledge) AddDocument(ctx context.Context, f wf.KnowledgeFile) (*wf.KnowledgeDocument, error) {
	in := knowledgeapp.DocumentInput{Name: f.Name, Content: f.Content,
		FileType: strings.ToLower(strings.TrimPrefix(path.Ext(f.Name), "."))}
	if c := f.Chunking; c.Custom {
		in.Strategy = &knowledge.ChunkStrategy{Type: knowledge.ChunkCustom, Separator: c.Separator, MaxTokens: c.MaxTokens, Overlap: c.Overlap}
	}
	doc, err := k.svc.Write(ctx, knowledgeapp.WriteRequest{WorkspaceID: f.Scope.WorkspaceID, KnowledgeID: f.KnowledgeID, Document: in})
	if err != nil {
		return nil, err
	}
	if err := k.waitIndexed(ctx, f.Scope.WorkspaceID, doc.ID); err != nil {
		return nil, err
	}
	return &wf.KnowledgeDocument{ID: doc.ID, Name: doc.Name}, nil
}

// waitIndexed returns once the document is ready; a failed one is an
// error with its reason, a deleted one errs.ErrNotFound.
func (k workflowKnowledge) waitIndexed(ctx context.Context, workspaceID, id int64) error {
	t := time.NewTicker(k.poll)
	defer t.Stop()
	for {
		docs, err := k.docs.DocumentsByID(ctx, workspaceID, []int64{id})
		switch {
		case err != nil:
			return fmt.Errorf("document %d: %w", id, err)
		case len(docs) == 0:
			return errs.NotFound("document", strconv.FormatInt(id, 10))
		case docs[0].Status == knowledge.StatusReady:
			return nil
		case docs[0].Status == knowledge.StatusFailed:
			return errs.Invalid("file", "document %d could not be indexed: %s", id, docs[0].Reason)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("document %d is still being indexed: %w", id, ctx.Err())
		case <-t.C:
		}
	}
}

// DeleteDocument removes one document of the knowledge base; one that is
// not there is errs.ErrNotFound.
func (k workflowKnowledge) DeleteDocument(ctx context.Context, s wf.Scope, knowledgeID, documentID int64) error {
	n, err := k.svc.Remove(ctx, s.WorkspaceID, knowledgeID, []int64{documentID})
	if err != nil {
		return err
	}
	if n == 0 {
		return errs.New(errs.ErrNotFound, "knowledge base %d has no document %d", knowledgeID, documentID)
	}
	return nil
}
