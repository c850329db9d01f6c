package main

import (
	"context"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// chatRecaller lets bot turns recall through the knowledge service: the
// runtime's RecallQuery is the service's, field for field. The service
// reads only knowledge bases of the query's workspace.
type chatRecaller struct {
	svc *knowledgeapp.Service
}

// Recall answers what the knowledge service answers: the best chunks, or
// errs.ErrUnavailable when the embedding model fails, among others.
func (r chatRecaller) Recall(ctx context.Context, q chatapp.RecallQuery) ([]knowledge.Recalled, error) {
	return r.svc.Recall(ctx, knowledgeapp.RecallQuery{WorkspaceID: q.WorkspaceID, KnowledgeIDs: q.KnowledgeIDs,
		Query: q.Query, History: q.History, Retrieval: q.Retrieval, RewriteModel: q.RewriteModel})
}
