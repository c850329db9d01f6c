package main

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// chatBot is one published bot under measure and its conversation.
type chatBot struct {
	name     string
	id       string
	strategy int // search_strategy; -1: no knowledge
	conv     string
	lat      benchkit.Sample
	recalls  int
	cpu      time.Duration // the server's CPU time over the measured turns
}

// chatPhase publishes the same bot without knowledge and with auto-call
// knowledge by each strategy, then runs streamed turns, one per bot per
// round, starting at a different bot each round.
func (b *bench) chatPhase() error {
	bots := []*chatBot{{name: "no knowledge", strategy: -1}, {name: "auto call, semantic", strategy: 0},
		{name: "auto call, full text", strategy: 20}, {name: "auto call, hybrid", strategy: 1}}
	for _, bot := range bots {
		if err := b.publish(bot); err != nil {
			return err
		}
	}
	r := rand.New(rand.NewSource(int64(b.o.seed) + 23))
	for round := range b.o.warm + b.o.turns {
		for k := range bots {
			bot := bots[(round+k)%len(bots)]
			if err := b.turn(bot, b.corpus.query(r, b.o.docs, b.o.chunksPerDoc), round >= b.o.warm); err != nil {
				return fmt.Errorf("%s: %w", bot.name, err)
			}
		}
	}
	b.reportChat(bots)
	return nil
}

// publish creates and publishes the bot; with a strategy it recalls from
// the knowledge base under measure before every turn.
func (b *bench) publish(bot *chatBot) error {
	cfg := map[string]any{"name": "bench " + bot.name, "prompt": "Be brief.", "model": map[string]any{"model_id": "fake"}}
	if bot.strategy >= 0 {
		cfg["knowledge"] = map[string]any{"dataset_ids": []string{b.kb}, "auto_call": true, "search_strategy": bot.strategy,
			"top_k": b.o.topK}
	}
	id, err := b.cl.PublishBot(b.ws, cfg)
	bot.id = id
	return err
}

// turn runs one streamed /v3/chat and checks its answer, and that the
// knowledge bots (only they) streamed a knowledge_recall message.
func (b *bench) turn(bot *chatBot, question string, record bool) error {
	cpu0 := benchkit.CPUTime(b.o.pid)
	st, took, err := streamChat(b.cl, bot, question)
	cpu := benchkit.CPUTime(b.o.pid) - cpu0
	if err != nil {
		return err
	}
	if !strings.HasPrefix(st.answer, "echo: "+question) {
		return fmt.Errorf("answer %q, want it to start with %q", st.answer, "echo: "+question)
	}
	if st.recalled != (bot.strategy >= 0) {
		return fmt.Errorf("knowledge_recall streamed: %v, want %v", st.recalled, bot.strategy >= 0)
	}
	if record {
		bot.lat.Add(took)
		bot.cpu += cpu
		if st.recalled {
			bot.recalls++
		}
	}
	return nil
}

func (b *bench) reportChat(bots []*chatBot) {
	fmt.Printf("\n/v3/chat streamed%s, bot with auto-call knowledge (%d chunks, top_k %d) against the same bot without: %d turns each, interleaved; milliseconds\n",
		label(b.o.label), b.chunks, b.o.topK, b.o.turns)
	base := bots[0].lat.Pct(50)
	var t benchkit.Table
	t.Row("bot", "p50", "p99", "mean", "added p50", "p50 ratio", "server CPU/turn", "added CPU", "turns with a recall")
	for _, bot := range bots {
		p50 := bot.lat.Pct(50)
		added := "-"
		if b.o.pid != 0 {
			added = benchkit.SignedMs((bot.cpu - bots[0].cpu) / time.Duration(max(1, bot.lat.Len())))
		}
		t.Row(bot.name, benchkit.Ms(p50), benchkit.Ms(bot.lat.Pct(99)), benchkit.Ms(bot.lat.Mean()), benchkit.SignedMs(p50-base),
			fmt.Sprintf("%.2f", float64(p50)/float64(max(1, base))), cpuPer(bot.cpu, bot.lat.Len(), b.o.pid), added, fmt.Sprint(bot.recalls))
	}
	t.Print(os.Stdout)
	fmt.Printf("the fake model answers with no token latency and embeds the question with no latency; %s\n", loadAvg())
}
