package fakellm_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// BenchmarkStreamDefault measures one streamed default-behaviour chat through
// the real eino-ext openai client, in parallel, without recording.
func BenchmarkStreamDefault(b *testing.B) {
	s := fakellm.Start(b, fakellm.WithRecordLimit(0))
	cm := newClient(b, s)
	in := user("the quick brown fox jumps over the lazy dog")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			sr, err := cm.Stream(context.Background(), in)
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := schema.ConcatMessageStream(sr); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
