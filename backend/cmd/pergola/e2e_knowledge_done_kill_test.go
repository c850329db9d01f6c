package main

import (
	"maps"
	"strings"
	"testing"
)

// lockerChunks is how many chunks lockerParagraphs(lockerChunks) splits
// into with lockerStrategy: one per paragraph, more than one embedding
// batch.
const lockerChunks = 80

var lockerStrategy = map[string]any{"chunk_type": 1, "separator": "\n\n", "max_tokens": 100}

// spareKeys is a ready document beside the one being indexed: searches
// for a locker find it whatever the other's state.
const spareKeys = "Spare keys: the caretaker keeps the spare key of every locker at the front desk."

// killWhileIndexing kills the indexing process with SIGKILL once the
// first embedding batch of a document is stored and the second is held at
// the model. While the document is broken (its process dead, then a new
// attempt held at its first batch) searches never return its chunks; in
// the end it is ready with exactly its chunks, each once, or failed with a
// reason. With twoProcs, documents and searches go through a second
// process that indexes nothing and lives through the kill.
func killWhileIndexing(t *testing.T, env map[string]string, twoProcs bool) {
	// One deployment: its processes share the files' storage (and, on
	// SQLite, the data directory the restarted process opens again).
	env["PERGOLA_DATA_DIR"], env["PERGOLA_FILES_DIR"], env["PERGOLA_KNOWLEDGE_LEASE"] = t.TempDir(), t.TempDir(), "1s"
	gate := newBatchGate(t)
	worker := startSelf(t, env)
	front := worker
	if twoProcs {
		waitFor(t, "the first process to bootstrap the database", func() bool { st, _, _ := rawStatus(worker.testServer, "/readyz"); return st == 200 })
		frontEnv := maps.Clone(env)
		frontEnv["PERGOLA_KNOWLEDGE_WORKERS"] = "0"
		front = startSelf(t, frontEnv)
	}
	forgetConnections()
	k := &kbSetup{s: front.testServer, ws: gate.register(t, front.testServer)}
	kb := k.base(t, "Lockers", 0)
	checkAllReady(t, k.waitDone(t, kb, k.add(t, kb, map[string]any{"name": "keys.txt", "text": spareKeys})...), 1)
	gate.hold(1)
	doc := k.add(t, kb, map[string]any{"name": "lockers.txt", "text": lockerParagraphs(lockerChunks), "chunk_strategy": lockerStrategy})[0]
	gate.waitHeld(t, "indexing to reach its second embedding batch")
	waitFor(t, "the first batch of chunks stored", func() bool { return chunkTotal(t, k, kb, doc) > 0 })
	noPartialChunks(t, k, kb, doc, "while it is indexed")

	worker.kill(t)
	gate.hold(0)
	if twoProcs {
		noPartialChunks(t, k, kb, doc, "after its process was killed")
	}
	restarted := startSelf(t, env)
	forgetConnections()
	if !twoProcs {
		k.s = restarted.testServer
	}
	gate.waitHeld(t, "a new attempt to index the document")
	noPartialChunks(t, k, kb, doc, "while it is indexed again")
	gate.release()
	checkIndexedOnce(t, k, kb, doc)
}

// noPartialChunks wants the document not ready, and every search
// strategy to find the ready document only, none of the unfinished one's
// chunks (its first batch is stored), which must not crowd it out either.
func noPartialChunks(t *testing.T, k *kbSetup, kb, doc, when string) {
	t.Helper()
	p := k.s.call(t, "GET", "/api/knowledge/"+kb+"/progress?document_ids="+doc, bootstrapToken, nil).must(t, 200)
	if st := items(t, p.data, "items")[0]["status"].(float64); st == 1 {
		t.Fatalf("%s the document is ready; want it processing or failed", when)
	}
	for _, strategy := range []int{0, 1, 20} {
		texts, _ := k.search(t, kb, map[string]any{"query": "Locker 3 opens with the code kx3q", "search_strategy": strategy, "top_k": 10})
		if len(texts) != 1 || texts[0] != spareKeys {
			t.Fatalf("%s a search (strategy %d) returned %q; want the ready document's chunk alone", when, strategy, texts)
		}
	}
}

// checkIndexedOnce waits for the document to end: ready with exactly its
// chunks, each once at its position (and found once by a search), or
// failed with a reason and nothing found.
func checkIndexedOnce(t *testing.T, k *kbSetup, kb, doc string) {
	t.Helper()
	done := k.waitDone(t, kb, doc)[doc]
	t.Logf("after the kill the document ended %s (%s)", str(done, "status_name"), str(done, "reason"))
	switch done["status"].(float64) {
	case 1:
		if done["chunk_count"].(float64) != lockerChunks || done["progress"].(float64) != 100 {
			t.Fatalf("the document ended ready as %v; want %d chunks at 100%%", done, lockerChunks)
		}
		checkLockerChunks(t, k, kb, doc)
	case 9:
		if strings.TrimSpace(str(done, "reason")) == "" {
			t.Fatalf("the document failed without a reason: %v", done)
		}
		texts, _ := k.search(t, kb, map[string]any{"query": "kx3q", "search_strategy": 20})
		if len(texts) != 0 || chunkTotal(t, k, kb, doc) != 0 {
			t.Fatalf("a failed document's chunks are found: %q", texts)
		}
	default:
		t.Fatalf("the document ended %v; want ready or failed", done)
	}
}
