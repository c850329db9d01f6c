// Command knowledge measures knowledge bases on a running Pergola as a
// builder and a bot's users meet them, over HTTP: ingestion of generated
// documents and a CSV through /api/knowledge (chunks per second until the
// progress route says every document is ready, and the embedding requests
// and inputs the fake model counted, which show the batching), the
// latency of POST /api/knowledge/{id}/search by strategy, a streamed chat
// turn of a bot that recalls knowledge automatically interleaved with the
// same bot without knowledge, and the server's resident memory before and
// after. scripts/bench-knowledge.sh starts everything and calls it.
//
//	go run ./scripts/bench/knowledge -base http://127.0.0.1:8888 -token pat_x -llm http://127.0.0.1:8999/v1
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

type options struct {
	base, token, llm, label, embedModel, phases    string
	pprof, profileDir                              string
	docs, chunksPerDoc, words, csvRows, batchBytes int
	searches, warm, turns, topK, pid, seed         int
	timeout, settle, profileFor                    time.Duration
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.base, "base", "http://127.0.0.1:8888", "Pergola base URL")
	flag.StringVar(&o.token, "token", "", "personal access token of an administrator")
	flag.StringVar(&o.llm, "llm", "http://127.0.0.1:8999/v1", "the fake model's base URL (embeddings, chat, /fake/stats)")
	flag.StringVar(&o.label, "label", "", "what the server runs on, for the titles")
	flag.StringVar(&o.embedModel, "embed-model", "fake-embed-dim768", "the fake embedding model's name; -dim<N> fixes the vector length")
	flag.StringVar(&o.phases, "phases", "search,chat", "what to measure after the ingestion, in order: search, chat, profile (empty: ingestion only)")
	flag.StringVar(&o.pprof, "pprof", "", "the server's pprof base URL, e.g. http://127.0.0.1:6060 (profile phase)")
	flag.StringVar(&o.profileDir, "profile", "", "write a CPU profile of the server per bot into this folder (profile phase)")
	flag.DurationVar(&o.profileFor, "profile-for", 10*time.Second, "how long each bot's CPU profile lasts (profile phase)")
	flag.IntVar(&o.docs, "docs", 200, "text documents to ingest")
	flag.IntVar(&o.chunksPerDoc, "chunks-per-doc", 50, "chunks per document (one paragraph each)")
	flag.IntVar(&o.words, "words", 60, "words per chunk")
	flag.IntVar(&o.csvRows, "csv-rows", 2000, "rows of the CSV ingested into a table knowledge base (0: none)")
	flag.IntVar(&o.batchBytes, "batch-bytes", 4<<20, "documents are sent in requests of at most about this many bytes")
	flag.IntVar(&o.searches, "n", 300, "measured searches per strategy")
	flag.IntVar(&o.warm, "warm", 20, "warm-up searches (and chat turns) per strategy (and bot), not measured")
	flag.IntVar(&o.turns, "turns", 200, "measured chat turns per bot")
	flag.IntVar(&o.topK, "top-k", 5, "top_k of searches and of the bot's recall")
	flag.IntVar(&o.pid, "pid", 0, "server process id: report its resident memory (VmRSS)")
	flag.IntVar(&o.seed, "seed", 1, "seed of the generated corpus and queries")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Hour, "how long ingestion may take")
	flag.DurationVar(&o.settle, "settle", 3*time.Minute, "after the ingestion, wait up to this long for the server's background work (graph build) to end (0: not at all)")
	flag.Parse()
	return o
}

func main() {
	if err := run(parseFlags()); err != nil {
		fmt.Fprintln(os.Stderr, "bench knowledge:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.token == "" {
		return fmt.Errorf("-token is required")
	}
	phases := strings.FieldsFunc(o.phases, func(r rune) bool { return r == ',' })
	for _, p := range phases {
		if !slices.Contains([]string{"search", "chat", "profile"}, p) {
			return fmt.Errorf("-phases: unknown phase %q; use search, chat, profile", p)
		}
	}
	cl := benchkit.NewClient(o.base, o.token, 4)
	b := &bench{o: o, cl: cl, corpus: newCorpus(o.seed, o.words)}
	if err := b.setUp(); err != nil {
		return fmt.Errorf("setting up: %w", err)
	}
	b.memory("idle, models registered, nothing ingested")
	if err := b.ingest(); err != nil {
		return fmt.Errorf("ingesting: %w", err)
	}
	b.settle()
	for _, p := range phases {
		if err := b.phase(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	b.memory("at the end")
	return nil
}

// phase runs one measurement after the ingestion.
func (b *bench) phase(name string) error {
	switch name {
	case "search":
		return b.searchPhase()
	case "chat":
		return b.chatPhase()
	case "profile":
		return b.profilePhase()
	}
	return nil
}

// bench holds what the phases share: the client, the generated corpus and
// the knowledge base under measure.
type bench struct {
	o      options
	cl     *benchkit.Client
	corpus *corpus
	ws, kb string
	chunks int64
}

// memory prints the server's resident memory at a named moment.
func (b *bench) memory(when string) {
	if b.o.pid == 0 {
		return
	}
	fmt.Printf("server RSS (VmRSS) %s: %d MiB; %s\n", when, benchkit.RSS(b.o.pid), loadAvg())
}

// loadAvg reads the machine's load averages, printed beside figures
// taken on a shared machine.
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load average unknown"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "load average unknown"
	}
	return "load average " + strings.Join(f[:3], " ")
}

func label(l string) string {
	if l == "" {
		return ""
	}
	return " on " + l
}
