package knowledge_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"strings"
	"sync"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// hashEmbedder embeds texts as normalised hashed bags of words, so texts
// sharing words are near; it counts its calls and can be told to fail.
type hashEmbedder struct {
	mu    sync.Mutex
	calls int
	fail  error
	dims  int
	block chan struct{} // when set, each call waits for it
}

func (e *hashEmbedder) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls++
	fail, block := e.fail, e.block
	e.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail != nil {
		return nil, fail
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashVector(t, cmp.Or(e.dims, 256))
	}
	return out, nil
}

func (e *hashEmbedder) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

func hashVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	for _, w := range words(text) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	if n > 0 {
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
	}
	return v
}

// blockChunker cuts text at blank lines, and CSV into one piece per row
// ("column: value" lines); file type "bad" fails to parse.
type blockChunker struct{}

func (blockChunker) Chunk(_ context.Context, src knowledgeapp.Source, _ knowledge.ChunkStrategy, cols []knowledge.Column) ([]knowledgeapp.Piece, error) {
	b, err := io.ReadAll(src.Body)
	if err != nil {
		return nil, err
	}
	if src.FileType == "bad" || src.FileType == "pdf" {
		return nil, errs.Invalid("file", "this is not a valid %s file", src.FileType)
	}
	if src.FileType == "csv" {
		return csvPieces(string(b)), nil
	}
	var out []knowledgeapp.Piece
	for _, block := range strings.Split(string(b), "\n\n") {
		if strings.TrimSpace(block) != "" {
			out = append(out, knowledgeapp.Piece{Text: strings.TrimSpace(block)})
		}
	}
	return out, nil
}

func csvPieces(s string) []knowledgeapp.Piece {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	header := strings.Split(lines[0], ",")
	var out []knowledgeapp.Piece
	for _, l := range lines[1:] {
		vals := strings.Split(l, ",")
		row := map[string]string{}
		var text []string
		for i, h := range header {
			row[h] = vals[i]
			text = append(text, h+": "+vals[i])
		}
		out = append(out, knowledgeapp.Piece{Text: strings.Join(text, "\n"), Row: row})
	}
	return out
}

// memFiles keeps files in memory, per workspace.
type memFiles struct {
	mu    sync.Mutex
	files map[int64]*file.File
	data  map[int64][]byte
	next  int64
}

func newMemFiles() *memFiles {
	return &memFiles{files: map[int64]*file.File{}, data: map[int64][]byte{}, next: 9000}
}

func (f *memFiles) Save(_ context.Context, ws, user int64, name string, data []byte) (*file.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	fl := &file.File{ID: f.next, WorkspaceID: ws, UserID: user, Name: name, Bytes: int64(len(data))}
	f.files[fl.ID], f.data[fl.ID] = fl, data
	return fl, nil
}

func (f *memFiles) Of(_ context.Context, ws, id int64) (*file.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.files[id]
	if !ok || fl.WorkspaceID != ws {
		return nil, file.NotFound(id)
	}
	return fl, nil
}

func (f *memFiles) Content(ctx context.Context, ws, id int64) (*file.File, []byte, error) {
	fl, err := f.Of(ctx, ws, id)
	if err != nil {
		return nil, nil, err
	}
	return fl, f.data[id], nil
}

// pages serves web pages from a map.
type pages struct {
	mu    sync.Mutex
	body  map[string]string
	count int
}

func (p *pages) Fetch(_ context.Context, url string) ([]byte, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	b, ok := p.body[url]
	if !ok {
		return nil, "", errors.New("404 Not Found")
	}
	return []byte(b), "text/plain", nil
}

// models knows one embedding model "embed" (the default, dimensions not
// given) and one chat model.
type models struct{}

func (models) EmbeddingModel(_ context.Context, id string) (*knowledgeapp.EmbeddingModel, error) {
	switch id {
	case "", "embed":
		return &knowledgeapp.EmbeddingModel{ID: "embed"}, nil
	case "embed-64":
		return &knowledgeapp.EmbeddingModel{ID: "embed-64", Dimensions: 64}, nil
	case "gpt":
		return nil, errs.Invalid("embedding_model", "model %q is of kind chat; pick a model of kind embedding", id)
	}
	return nil, errs.Invalid("embedding_model", "there is no model %q", id)
}

// queue records what is published.
type queue struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (q *queue) Publish(_ context.Context, topic string, payload []byte) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, payload)
	return fmt.Sprint(len(q.msgs)), nil
}

// take returns and forgets the messages published so far.
func (q *queue) take() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.msgs
	q.msgs = nil
	return out
}

// reverser ranks documents in reverse order of their given position, or
// fails when fail is set, or refuses the model (errs.ErrInvalid, as the
// registry does for a model that is gone) when unknown is set.
type reverser struct{ fail, unknown bool }

func (r reverser) Rerank(_ context.Context, model, _ string, docs []string, topN int) ([]knowledge.Ranked, error) {
	if r.fail {
		return nil, errors.New("rerank service down")
	}
	if r.unknown {
		return nil, errs.Invalid("rerank_model", "there is no model %q", model)
	}
	var out []knowledge.Ranked
	for i := range docs {
		out = append(out, knowledge.Ranked{Index: i, Score: float64(i+1) / float64(len(docs))})
	}
	return out[max(0, len(out)-topN):], nil
}

// rewriter answers the last history entry followed by the query.
type rewriter struct{ got []string }

func (r *rewriter) Rewrite(_ context.Context, _, query string, history []string) (string, error) {
	r.got = history
	return history[len(history)-1] + " " + query, nil
}
