package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/provider"
)

// apiEmbedder is the embedder of POST /v1/embeddings: what the provider
// refuses about the input is the caller's 400 naming input, any other
// failure of the provider a 503 whose cause goes to the log (its message
// may name internal hosts).
type apiEmbedder struct {
	embedder
	log *slog.Logger
}

// Embed embeds texts, with the provider's failures told as above.
func (e apiEmbedder) Embed(ctx context.Context, id string, texts []string) ([][]float32, error) {
	vecs, err := e.embedder.Embed(ctx, id, texts)
	var se *provider.StatusError
	if err == nil || !errors.As(err, &se) {
		return vecs, err
	}
	switch se.Status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return nil, errs.Invalid("input", "the embedding model refused it: %s", se.Reason)
	}
	e.log.WarnContext(ctx, "embedding request failed", "model", id, "err", err)
	return nil, errs.New(errs.ErrUnavailable, "the embedding model %s is unavailable right now; please try again", id)
}
