package chat

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/variable"
)

// valuesResult is a read of keyword memory on its way.
type valuesResult struct {
	values map[string]string
	err    error
}

// prefetchValues starts reading the end user's keyword memory while the
// conversation is read, so that on MySQL a bot with variables pays one
// round trip for both instead of two in a row; the returned function waits
// for it. A bot without variables reads nothing and starts nothing.
func (s *Service) prefetchValues(ctx context.Context, sc variable.Scope, defs []variable.Definition) func() (map[string]string, error) {
	if len(defs) == 0 {
		return func() (map[string]string, error) { return map[string]string{}, nil }
	}
	done := make(chan valuesResult, 1) // the read never blocks, even when the turn fails first
	go func() {
		v, err := s.d.Bots.VariableValues(ctx, sc, defs)
		done <- valuesResult{v, err}
	}()
	return func() (map[string]string, error) {
		r := <-done
		if r.err != nil {
			return nil, fmt.Errorf("chat: variables: %w", r.err)
		}
		return r.values, nil
	}
}
