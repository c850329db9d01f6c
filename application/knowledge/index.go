package knowledge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// failure is an attempt's end a person can act on: the document fails
// with its reason. Any other error is the platform's (a database or
// index that failed): the attempt stops, and the document is indexed
// again when its lease expires.
type failure struct{ reason string }

func (f *failure) Error() string { return f.reason }

func failf(format string, args ...any) error { return &failure{reason: fmt.Sprintf(format, args...)} }

// Progress shares of an attempt: parsing takes the first 5 %, embedding
// and storing the chunks the rest up to 99, finishing the last.
const parsedPercent = 5

// index runs one claimed attempt: parse and cut the source, remove what
// an earlier attempt left, embed and store the chunks in batches
// (reporting progress for its generation), remove chunks of any older
// generation, and finish ready. A worker that loses its lease stops at
// its next write.
func (s *Service) index(ctx context.Context, d *knowledge.Document) error {
	ctx, stop := s.keepLease(ctx, d)
	defer stop()
	n, err := s.build(ctx, d)
	var f *failure
	switch {
	case errors.Is(err, errs.ErrNotFound):
		s.dropOrphans(ctx, d)
		return nil
	case lost(err) || ctx.Err() != nil:
		return nil // another attempt owns the document now, or this process stops
	case errors.As(err, &f):
		return s.finish(ctx, d, knowledge.Outcome{Status: knowledge.StatusFailed, Reason: f.reason})
	case err != nil:
		s.d.Log.Warn("knowledge worker: indexing stopped; it starts again when its lease expires", "document", d.ID, "err", err)
		return nil
	}
	return s.finish(ctx, d, knowledge.Outcome{Status: knowledge.StatusReady, Chunks: int64(n)})
}

// dropOrphans removes what this attempt stored for a document deleted
// meanwhile: the delete removed the chunks stored before it, this removes
// any stored after.
func (s *Service) dropOrphans(ctx context.Context, d *knowledge.Document) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.d.Index.DeleteDocument(ctx, d.WorkspaceID, d.KnowledgeID, d.ID); err != nil {
		s.d.Log.Warn("knowledge worker: remove the chunks of a document deleted while it was indexed", "document", d.ID, "err", err)
	}
}

// lost reports an error saying the attempt no longer owns the document.
func lost(err error) bool {
	return errors.Is(err, errs.ErrConflict) || errors.Is(err, errs.ErrNotFound)
}

// build does the work of an attempt and returns the chunks it stored.
func (s *Service) build(ctx context.Context, d *knowledge.Document) (int, error) {
	b, err := s.d.Bases.GetBase(ctx, d.KnowledgeID)
	if err != nil {
		return 0, err // gone with its knowledge base: lost
	}
	pieces, err := s.pieces(ctx, d)
	if err != nil {
		return 0, err
	}
	if err := s.report(ctx, d, parsedPercent, 0); err != nil {
		return 0, err
	}
	if err := s.d.Index.DeleteDocument(ctx, d.WorkspaceID, d.KnowledgeID, d.ID); err != nil {
		return 0, fmt.Errorf("remove the chunks of an earlier attempt: %w", err)
	}
	kept, err := s.store(ctx, b, d, pieces)
	if err != nil {
		return 0, err
	}
	return len(pieces), s.sweep(ctx, d, kept)
}

// pieces loads the source and cuts it, within the chunk limit.
func (s *Service) pieces(ctx context.Context, d *knowledge.Document) ([]Piece, error) {
	src, err := s.source(ctx, d)
	if err != nil {
		return nil, err
	}
	pieces, err := s.d.Chunker.Chunk(ctx, src, d.Strategy, d.Columns)
	if err != nil {
		if errors.Is(err, errs.ErrInvalid) {
			return nil, failf("the %s document could not be read: %v", d.FileType, err)
		}
		return nil, err
	}
	switch {
	case len(pieces) == 0:
		return nil, failf("no text was found in the document; check that it is not empty or scanned images only")
	case len(pieces) > s.d.Limits.ChunksPerDocument:
		return nil, failf("the document makes %d chunks; at most %d are allowed: split it, or raise max_tokens of its chunk strategy",
			len(pieces), s.d.Limits.ChunksPerDocument)
	}
	return pieces, nil
}

// source opens a document's content: the stored file, the text, or the
// web page fetched now.
func (s *Service) source(ctx context.Context, d *knowledge.Document) (Source, error) {
	switch d.Source {
	case knowledge.SourceText:
		return Source{FileType: d.FileType, Body: strings.NewReader(d.Text)}, nil
	case knowledge.SourceWeb:
		body, ctype, err := s.d.Fetcher.Fetch(ctx, d.URL)
		if err != nil {
			return Source{}, failf("the page %s could not be fetched: %v", d.URL, err)
		}
		return Source{FileType: webType(ctype), Body: bytes.NewReader(body), URL: d.URL}, nil
	}
	_, data, err := s.d.Files.Content(ctx, d.WorkspaceID, d.FileID)
	if isNotFound(err) {
		return Source{}, failf("its file %d is gone; add the document again", d.FileID)
	}
	if err != nil {
		return Source{}, fmt.Errorf("read file %d: %w", d.FileID, err)
	}
	return Source{FileType: d.FileType, Body: bytes.NewReader(data)}, nil
}

// webType is the file type of a fetched page by its content type.
func webType(contentType string) string {
	switch ct := strings.ToLower(contentType); {
	case strings.Contains(ct, "pdf"):
		return "pdf"
	case strings.Contains(ct, "markdown"):
		return "md"
	case strings.HasPrefix(ct, "text/plain"):
		return "txt"
	case strings.Contains(ct, "json"):
		return "json"
	}
	return "html"
}

// sweep removes the document's chunks that are not this attempt's: any
// an older attempt's worker stored after this one cleared the document.
func (s *Service) sweep(ctx context.Context, d *knowledge.Document, kept map[int64]bool) error {
	var stale []int64
	for page := 1; ; page++ {
		cs, total, err := s.d.Index.ListChunks(ctx, d.WorkspaceID, d.KnowledgeID, d.ID, identity.Page{Number: page, Size: 500})
		if err != nil {
			return fmt.Errorf("check the stored chunks: %w", err)
		}
		for _, c := range cs {
			if !kept[c.ID] {
				stale = append(stale, c.ID)
			}
		}
		if len(cs) == 0 || int64(page*500) >= total {
			break
		}
	}
	if len(stale) == 0 {
		return nil
	}
	return s.d.Index.DeleteChunks(ctx, d.WorkspaceID, d.KnowledgeID, stale)
}

// finish stores an attempt's outcome for its generation and announces the
// document's new status (see touch). An attempt that lost the document
// stores nothing.
func (s *Service) finish(ctx context.Context, d *knowledge.Document, o knowledge.Outcome) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := s.d.Documents.Finish(ctx, d.ID, d.Generation, o, s.d.Now())
	if lost(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finish document %d: %w", d.ID, err)
	}
	s.touch(ctx, d)
	return nil
}
