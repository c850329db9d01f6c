package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// botKnowledge names knowledge bases for bots, over the knowledge base
// store: the bot use cases check a bot's bindings with it (botapp
// WithKnowledge) and the Coze bot API lists knowledge_infos (api.Deps
// BotKnowledge). Only bases of the workspace asked about are named, so
// a bot can never bind, or even see the name of, another workspace's.
type botKnowledge struct {
	bases knowledge.BaseStore
}

// Names returns the names of the ids that are knowledge bases of the
// workspace; unknown ids and other workspaces' are left out.
func (k botKnowledge) Names(ctx context.Context, workspaceID int64, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	for _, id := range ids {
		b, err := k.bases.GetBase(ctx, id)
		if errors.Is(err, errs.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("knowledge base %d: %w", id, err)
		}
		if b.WorkspaceID == workspaceID {
			out[id] = b.Name
		}
	}
	return out, nil
}
