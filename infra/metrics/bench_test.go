package metrics

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/infra/redis"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// BenchmarkChatHookTurn is the hook's cost for the steps of one turn with
// a tool call: start, text, model end, tool result, end.
func BenchmarkChatHookTurn(b *testing.B) {
	h := NewChatHook(prometheus.NewRegistry(), NewLabels(DefaultBounds()))
	ctx := context.Background()
	for i := range b.N {
		id := int64(i)
		h.OnStep(ctx, chat.Step{Kind: chat.StepTurnStart, ChatID: id, BotID: 7, WorkspaceID: 1, ModelID: "m"})
		h.OnStep(ctx, chat.Step{Kind: chat.StepTextDelta, ChatID: id, BotID: 7, WorkspaceID: 1, Text: "x"})
		h.OnStep(ctx, chat.Step{Kind: chat.StepModelEnd, ChatID: id, BotID: 7, WorkspaceID: 1, ModelID: "m"})
		h.OnStep(ctx, chat.Step{Kind: chat.StepToolResult, ChatID: id, BotID: 7, WorkspaceID: 1, ToolOrigin: "3", ToolName: "t"})
		h.OnStep(ctx, chat.Step{Kind: chat.StepTurnEnd, ChatID: id, BotID: 7, WorkspaceID: 1, Text: "completed"})
	}
}

// BenchmarkQueueStatsRedis is one scrape's read of a Redis queue with
// 10,000 entries waiting and a consumer group.
func BenchmarkQueueStatsRedis(b *testing.B) {
	client, prefix := testenv.Redis(b)
	q := redis.NewQueue(client, prefix, redis.QueueOptions{})
	ctx := context.Background()
	for range 10_000 {
		if _, err := q.Publish(ctx, "jobs", []byte("x")); err != nil {
			b.Fatal(err)
		}
	}
	if err := client.XGroupCreate(ctx, prefix+"queue:jobs", "g", "0").Err(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if st, err := q.Stats(ctx, "jobs", "g"); err != nil || st.Depth != 10_000 {
			b.Fatalf("stats = %+v, %v", st, err)
		}
	}
}
