package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// dimsSuffix reads the fake's fixed-length convention: a model named
// "...-dim768" always answers 768 dimensions.
var dimsSuffix = regexp.MustCompile(`-dim(\d+)$`)

// setUp registers the fake chat model and the fake embedding model (the
// platform's default, so knowledge bases name none) and finds the
// token's workspace.
func (b *bench) setUp() error {
	if err := b.cl.AddFakeModel("fake", b.o.llm); err != nil {
		return err
	}
	m := map[string]any{"id": "embed", "name": "Embed", "kind": "embedding", "default": true, "provider": "openai",
		"base_url": b.o.llm, "api_key": "k", "model": b.o.embedModel}
	if s := dimsSuffix.FindStringSubmatch(b.o.embedModel); s != nil {
		m["dimensions"], _ = strconv.Atoi(s[1])
	}
	if _, err := b.cl.Call("POST", "/api/admin/models", m, 201); err != nil {
		return err
	}
	var err error
	b.ws, err = b.cl.Workspace()
	return err
}

// ingested is what one ingestion took.
type ingested struct {
	docs, requests int
	chunks         int64
	bytes          int
	took           time.Duration
	embed          embedStats
	peakRSS        int64
}

// ingest creates the text knowledge base under measure, adds the
// generated documents and, when asked, a table knowledge base with the
// CSV, and prints what each took.
func (b *bench) ingest() error {
	kb, err := b.createBase("bench text", 0)
	if err != nil {
		return err
	}
	b.kb = kb
	texts := make([]map[string]any, b.o.docs)
	for d := range texts {
		texts[d] = map[string]any{"name": fmt.Sprintf("doc-%04d.txt", d+1), "text": b.corpus.document(d, b.o.chunksPerDoc),
			"chunk_strategy": map[string]any{"chunk_type": 1, "separator": "\n\n", "max_tokens": 2000}}
	}
	res, err := b.ingestInto(kb, texts)
	if err != nil {
		return err
	}
	if want := int64(b.o.docs * b.o.chunksPerDoc); res.chunks != want {
		return fmt.Errorf("the documents made %d chunks, want %d (one per paragraph)", res.chunks, want)
	}
	b.chunks = res.chunks
	fmt.Printf("\nIngestion%s, text: %d documents of %d chunks (%d words each), %.1f MB in %d requests\n",
		label(b.o.label), res.docs, b.o.chunksPerDoc, b.o.words, float64(res.bytes)/1e6, res.requests)
	res.print(b.o.pid != 0)
	b.memory("after ingesting the text")
	return b.ingestCSV()
}

// ingestCSV adds the CSV to a table knowledge base of its own (each row a
// chunk) and prints the rate.
func (b *bench) ingestCSV() error {
	if b.o.csvRows == 0 {
		return nil
	}
	kb, err := b.createBase("bench table", 1)
	if err != nil {
		return err
	}
	csv := b.corpus.csv(b.o.csvRows)
	res, err := b.ingestInto(kb, []map[string]any{{"name": "products.csv", "file_type": "csv",
		"content": base64.StdEncoding.EncodeToString([]byte(csv))}})
	if err != nil {
		return err
	}
	if res.chunks != int64(b.o.csvRows) {
		return fmt.Errorf("the CSV made %d chunks, want one per row (%d)", res.chunks, b.o.csvRows)
	}
	fmt.Printf("\nIngestion%s, table: a CSV of %d rows (%.1f MB)\n", label(b.o.label), b.o.csvRows, float64(len(csv))/1e6)
	res.print(false)
	return nil
}

func (r ingested) print(rss bool) {
	secs := r.took.Seconds()
	fmt.Printf("  %d chunks ready in %.2f s: %.0f chunks/s (parsed, chunked, embedded by the fake with no latency, stored)\n",
		r.chunks, secs, float64(r.chunks)/secs)
	fmt.Printf("  embedding requests %d for %d inputs: %.1f inputs per request\n",
		r.embed.Requests, r.embed.Inputs, float64(r.embed.Inputs)/float64(max(1, r.embed.Requests)))
	if rss {
		fmt.Printf("  server peak RSS while ingesting: %d MiB\n", r.peakRSS)
	}
	fmt.Printf("  %s\n", loadAvg())
}

// createBase creates a knowledge base of format 0 (text) or 1 (table)
// with the platform's default embedding model and returns its id.
func (b *bench) createBase(name string, format int) (string, error) {
	env, err := b.cl.Call("POST", "/api/knowledge", map[string]any{"workspace_id": b.ws, "name": name, "format_type": format}, 201)
	if err != nil {
		return "", err
	}
	var kb struct {
		ID string `json:"id"`
	}
	return kb.ID, env.Into(&kb)
}

// ingestInto sends the documents in requests of about -batch-bytes,
// then waits until every one is ready; the clock runs from the first
// request to the last document ready.
func (b *bench) ingestInto(kb string, docs []map[string]any) (ingested, error) {
	before, err := fakeStats(b.o.llm)
	if err != nil {
		return ingested{}, err
	}
	var stopRSS func() []int64
	if b.o.pid != 0 {
		stopRSS = benchkit.PeakRSS([]int{b.o.pid})
	}
	res := ingested{docs: len(docs)}
	start := time.Now()
	ids, err := b.send(kb, docs, &res)
	if err == nil {
		res.chunks, err = b.waitReady(kb, ids, start.Add(b.o.timeout))
	}
	res.took = time.Since(start)
	if stopRSS != nil {
		res.peakRSS = stopRSS()[0]
	}
	if err != nil {
		return res, err
	}
	after, err := fakeStats(b.o.llm)
	res.embed = after.minus(before)
	return res, err
}

// maxDocsPerRequest is the most documents POST .../documents takes.
const maxDocsPerRequest = 50

// send posts the documents, several per request up to -batch-bytes (and
// maxDocsPerRequest), and returns their ids.
func (b *bench) send(kb string, docs []map[string]any, res *ingested) ([]string, error) {
	var ids []string
	for start := 0; start < len(docs); {
		end, size := start, 0
		for end < len(docs) && end-start < maxDocsPerRequest && (end == start || size+docSize(docs[end]) <= b.o.batchBytes) {
			size += docSize(docs[end])
			end++
		}
		got, err := b.addDocuments(kb, docs[start:end])
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
		res.requests++
		res.bytes += size
		start = end
	}
	return ids, nil
}

func docSize(d map[string]any) int {
	t, _ := d["text"].(string)
	c, _ := d["content"].(string)
	return len(t) + len(c)
}

func (b *bench) addDocuments(kb string, docs []map[string]any) ([]string, error) {
	env, err := b.cl.Call("POST", "/api/knowledge/"+kb+"/documents", map[string]any{"documents": docs}, http.StatusCreated)
	if err != nil {
		return nil, err
	}
	var out struct {
		Documents []struct {
			ID string `json:"id"`
		} `json:"documents"`
	}
	if err := env.Into(&out); err != nil {
		return nil, err
	}
	ids := make([]string, len(out.Documents))
	for i, d := range out.Documents {
		ids[i] = d.ID
	}
	return ids, nil
}

// progress is one document's entry in GET /api/knowledge/{id}/progress.
type progress struct {
	DocumentID string `json:"document_id"`
	Status     int    `json:"status"`
	Reason     string `json:"reason"`
	ChunkCount int64  `json:"chunk_count"`
}

// waitReady polls the progress route, 100 documents per request, until
// every document is ready (status 1), and returns their chunks. A failed
// document (status 9) or the deadline is an error. It polls every 5% of
// the time so far (50 ms to 1 s): often enough to end the clock within
// 5%, seldom enough that the polls do not slow the indexing they time
// (each reads the documents' rows).
func (b *bench) waitReady(kb string, ids []string, deadline time.Time) (int64, error) {
	start := time.Now()
	for {
		chunks, pending, err := b.progressOf(kb, ids)
		if err != nil || pending == 0 {
			return chunks, err
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d of %d documents still processing after %s (-timeout)", pending, len(ids), b.o.timeout)
		}
		time.Sleep(min(time.Second, max(50*time.Millisecond, time.Since(start)/20)))
	}
}

func (b *bench) progressOf(kb string, ids []string) (chunks int64, pending int, err error) {
	for start := 0; start < len(ids); start += 100 {
		group := ids[start:min(len(ids), start+100)]
		env, err := b.cl.Call("GET", "/api/knowledge/"+kb+"/progress?document_ids="+strings.Join(group, ","), nil, 200)
		if err != nil {
			return 0, 0, err
		}
		var out struct {
			Items []progress `json:"items"`
		}
		if err := env.Into(&out); err != nil {
			return 0, 0, err
		}
		for _, p := range out.Items {
			switch p.Status {
			case 1:
				chunks += p.ChunkCount
			case 9:
				return 0, 0, fmt.Errorf("document %s failed: %s", p.DocumentID, p.Reason)
			default:
				pending++
			}
		}
	}
	return chunks, pending, nil
}

// embedStats is the fake model's count of embedding requests and inputs.
type embedStats struct {
	Requests int64 `json:"requests"`
	Inputs   int64 `json:"inputs"`
}

func (s embedStats) minus(o embedStats) embedStats {
	return embedStats{Requests: s.Requests - o.Requests, Inputs: s.Inputs - o.Inputs}
}

// fakeStats reads GET {llm}/fake/stats.
func fakeStats(llm string) (embedStats, error) {
	resp, err := http.Get(strings.TrimSuffix(llm, "/") + "/fake/stats")
	if err != nil {
		return embedStats{}, fmt.Errorf("the fake model's stats: %w", err)
	}
	defer resp.Body.Close()
	var s embedStats
	if resp.StatusCode != 200 {
		return s, fmt.Errorf("the fake model's stats: status %d", resp.StatusCode)
	}
	return s, json.NewDecoder(resp.Body).Decode(&s)
}
