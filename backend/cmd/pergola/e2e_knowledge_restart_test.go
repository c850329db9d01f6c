package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestKnowledgeKill9MidIndexing kills the server with SIGKILL while a
// document is half indexed (its first batch of chunks stored, the second
// held at the embedding model) and starts it again on the same storage:
// the expired lease is reaped, the next attempt removes the partial
// chunks and indexes again, and the document ends ready with exactly its
// chunks, each once.
func TestKnowledgeKill9MidIndexing(t *testing.T) {
	bin := buildPergola(t)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			env := b.env(t)
			env["PERGOLA_DATA_DIR"], env["PERGOLA_KNOWLEDGE_LEASE"] = t.TempDir(), "1s"
			gate := fakeEmbeddings(t)
			p1 := startProcess(t, bin, env)
			forgetConnections()
			k := kbOn(t, p1.testServer, gate)
			kb := k.base(t, "Lockers", 0)
			gate.hold(1)
			ids := k.add(t, kb, map[string]any{"name": "lockers.txt", "text": lockerParagraphs(80),
				"chunk_strategy": map[string]any{"chunk_type": 1, "separator": "\n\n", "max_tokens": 100}})
			select {
			case <-gate.held:
			case <-time.After(60 * time.Second):
				t.Fatal("indexing never reached its second embedding batch")
			}
			waitFor(t, "the first batch of chunks stored", func() bool { return chunkTotal(t, k, kb, ids[0]) > 0 })
			p1.kill(t)
			gate.release()

			p2 := startProcess(t, bin, env)
			forgetConnections()
			k.s = p2.testServer
			done := k.waitDone(t, kb, ids[0])[ids[0]]
			if done["status"].(float64) != 1 || done["chunk_count"].(float64) != 80 {
				t.Fatalf("after the restart the document is %v; want ready with 80 chunks", done)
			}
			checkLockerChunks(t, k, kb, ids[0])
		})
	}
}

func lockerParagraphs(n int) string {
	parts := make([]string, n)
	for i := range n {
		parts[i] = fmt.Sprintf("Locker %d opens with the code kx%dq.", i, i)
	}
	return strings.Join(parts, "\n\n")
}

func chunkTotal(t *testing.T, k *kbSetup, kb, doc string) int {
	r := k.s.call(t, "GET", "/api/knowledge/"+kb+"/documents/"+doc+"/chunks?page_size=1", bootstrapToken, nil).must(t, 200)
	return int(r.data["total"].(float64))
}

// checkLockerChunks checks that the document holds each paragraph once,
// at its position, and that a search finds one chunk per code.
func checkLockerChunks(t *testing.T, k *kbSetup, kb, doc string) {
	r := k.s.call(t, "GET", "/api/knowledge/"+kb+"/documents/"+doc+"/chunks?page_size=100", bootstrapToken, nil).must(t, 200)
	chunks := items(t, r.data, "items")
	if total := r.data["total"].(float64); total != 80 || len(chunks) != 80 {
		t.Fatalf("%v chunks stored (%d listed), want exactly 80", total, len(chunks))
	}
	for i, c := range chunks {
		want := fmt.Sprintf("Locker %d opens with the code kx%dq.", i, i)
		if c["position"].(float64) != float64(i) || str(c, "text") != want {
			t.Fatalf("chunk %d = %v; want %q at position %d", i, c, want, i)
		}
	}
	texts, _ := k.search(t, kb, map[string]any{"query": "kx57q", "search_strategy": 20, "top_k": 10})
	if len(texts) != 1 || !strings.Contains(texts[0], "Locker 57 ") {
		t.Fatalf("full-text search of one code = %q; want its chunk, once", texts)
	}
}
