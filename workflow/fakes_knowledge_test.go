package workflow

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pergola-ai/pergola/domain/errs"
)

// fakeDoc is a document of the fake knowledge bases: each paragraph
// (or piece between the writer's custom separator) is a chunk.
type fakeDoc struct {
	ID     int64    `json:"id"`
	Name   string   `json:"name"`
	Chunks []string `json:"chunks"`
}

// fakeKnowledge is an in-memory Knowledge: knowledge bases by id, chunks
// scored by the share of the query's words they hold. Error fails every
// call with that message.
type fakeKnowledge struct {
	mu      sync.Mutex
	bases   map[string][]fakeDoc
	nextID  int64
	queries []string
	Error   string
}

func newFakeKnowledge(bases map[string][]fakeDoc) *fakeKnowledge {
	f := &fakeKnowledge{bases: map[string][]fakeDoc{}, nextID: 100}
	for k, docs := range bases {
		f.bases[k] = append([]fakeDoc{}, docs...)
	}
	return f
}

func (f *fakeKnowledge) base(id int64) ([]fakeDoc, string, error) {
	key := strconv.FormatInt(id, 10)
	docs, ok := f.bases[key]
	if !ok {
		return nil, key, errs.NotFound("knowledge base", key)
	}
	return docs, key, nil
}

func (f *fakeKnowledge) Retrieve(_ context.Context, q KnowledgeQuery) ([]KnowledgeChunk, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, fmt.Sprintf("%v %s top%d min%g %s", q.KnowledgeIDs, q.Strategy, q.TopK, q.MinScore, q.Query))
	if f.Error != "" {
		return nil, errors.New(f.Error)
	}
	var out []KnowledgeChunk
	for _, id := range q.KnowledgeIDs {
		docs, _, err := f.base(id)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			for _, text := range d.Chunks {
				if s := overlap(q.Query, text); s > 0 && s >= q.MinScore {
					out = append(out, KnowledgeChunk{KnowledgeID: id, DocumentID: d.ID, DocumentName: d.Name, Text: text, Score: s})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > q.TopK {
		out = out[:q.TopK]
	}
	return out, nil
}

// overlap is the share of the query's words (of 3+ letters) in text.
func overlap(query, text string) float64 {
	var words, hits int
	lower := strings.ToLower(text)
	for _, w := range strings.Fields(strings.ToLower(query)) {
		w = strings.Trim(w, "?.,!")
		if len(w) < 3 {
			continue
		}
		words++
		if strings.Contains(lower, w) {
			hits++
		}
	}
	if words == 0 {
		return 0
	}
	return float64(hits) / float64(words)
}

func (f *fakeKnowledge) AddDocument(_ context.Context, d KnowledgeFile) (*KnowledgeDocument, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	docs, key, err := f.base(d.KnowledgeID)
	if err != nil {
		return nil, err
	}
	sep := "\n\n"
	if d.Chunking.Custom && d.Chunking.Separator != "" {
		sep = d.Chunking.Separator
	}
	doc := fakeDoc{ID: f.nextID, Name: d.Name}
	f.nextID++
	for _, c := range strings.Split(string(d.Content), sep) {
		if c = strings.TrimSpace(c); c != "" {
			doc.Chunks = append(doc.Chunks, c)
		}
	}
	f.bases[key] = append(docs, doc)
	return &KnowledgeDocument{ID: doc.ID, Name: doc.Name}, nil
}

func (f *fakeKnowledge) DeleteDocument(_ context.Context, _ Scope, knowledgeID, documentID int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	docs, key, err := f.base(knowledgeID)
	if err != nil {
		return err
	}
	for i, d := range docs {
		if d.ID == documentID {
			f.bases[key] = append(docs[:i:i], docs[i+1:]...)
			return nil
		}
	}
	return errs.NotFound("document", strconv.FormatInt(documentID, 10))
}
