package main

import (
	"context"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// chatRecaller lets bot turns recall knowledge through the knowledge use
// cases; the chat runtime's query and the knowledge service's carry the
// same fields.
type chatRecaller struct{ svc *knowledgeapp.Service }

func (r chatRecaller) Recall(ctx context.Context, q chatapp.RecallQuery) ([]knowledge.Recalled, error) {
	return r.svc.Recall(ctx, knowledgeapp.RecallQuery(q))
}
