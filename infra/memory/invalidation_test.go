package memory_test

import (
	"testing"

	"github.com/pergola-ai/pergola/infra/kvtest"
	"github.com/pergola-ai/pergola/infra/memory"
)

var _ kvtest.InvalidationBus = (*memory.InvalidationBus)(nil)

func TestInvalidationBus(t *testing.T) {
	kvtest.TestInvalidationBus(t, func(_ *testing.T, n int) []kvtest.InvalidationBus {
		bus := memory.NewInvalidationBus() // one process: every "process" shares it
		out := make([]kvtest.InvalidationBus, n)
		for i := range out {
			out[i] = bus
		}
		return out
	})
}
