package pgvector

import (
	"context"
	"fmt"
)

// DeleteDocument removes every chunk of a document of the workspace's
// knowledge base; none left is not an error. Deletes grow the base's
// revision, as every write does.
func (ix *Index) DeleteDocument(ctx context.Context, workspaceID, knowledgeID, documentID int64) error {
	err := ix.deleteIn(ctx, workspaceID, knowledgeID, "DELETE FROM knowledge_chunks WHERE workspace_id = $1 AND knowledge_id = $2 AND document_id = $3",
		workspaceID, knowledgeID, documentID)
	if err != nil {
		return fmt.Errorf("delete document: %w", err)
	}
	return nil
}

// DeleteBase removes every chunk of the workspace's knowledge base; it
// may take vectors of another length afterwards.
func (ix *Index) DeleteBase(ctx context.Context, workspaceID, knowledgeID int64) error {
	err := ix.deleteIn(ctx, workspaceID, knowledgeID, "DELETE FROM knowledge_chunks WHERE workspace_id = $1 AND knowledge_id = $2", workspaceID, knowledgeID)
	if err != nil {
		return fmt.Errorf("delete knowledge base: %w", err)
	}
	return nil
}

// DeleteChunks removes the chunks of the workspace's knowledge base with
// the given ids; other ids are ignored.
func (ix *Index) DeleteChunks(ctx context.Context, workspaceID, knowledgeID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := ix.deleteIn(ctx, workspaceID, knowledgeID, "DELETE FROM knowledge_chunks WHERE workspace_id = $1 AND knowledge_id = $2 AND id = ANY($3)",
		workspaceID, knowledgeID, ids)
	if err != nil {
		return fmt.Errorf("delete chunks: %w", err)
	}
	return nil
}
