package knowledge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Bounds of the cache of document states.
const (
	// docStatesBases is how many knowledge bases' document states a
	// process keeps.
	docStatesBases = 4096
	// docStatesTTL bounds how long states are trusted without being read
	// again, even at an unchanged revision: a process that stopped
	// between a document's new status and the Touch that announces it
	// leaves the others stale at most this long.
	docStatesTTL = time.Minute
)

// baseStates is what a search needs of one knowledge base's documents,
// read at an index revision: the names of the ready documents (a hit of
// any other document is not shown) and the documents that are not ready,
// whose chunks the index leaves out.
type baseStates struct {
	revision int64
	read     time.Time
	names    map[int64]string
	notReady []int64
}

// docStates caches the document states of knowledge bases by the index
// revision they were read at, so that a recall reads no document row:
// every change of a document's status or name grows the base's revision
// (Index.Touch, or the write of its chunks), in every process sharing the
// index, and states read at an older revision are read again.
type docStates struct {
	mu    sync.Mutex
	bases map[baseKey]*baseStates
}

// baseKey names a knowledge base of a workspace.
type baseKey struct{ workspaceID, knowledgeID int64 }

func newDocStates() *docStates { return &docStates{bases: map[baseKey]*baseStates{}} }

// get returns the states of a base read at revision, fresh at now.
func (c *docStates) get(k baseKey, revision int64, now time.Time) *baseStates {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.bases[k]
	if b == nil || b.revision != revision || now.Sub(b.read) > docStatesTTL {
		return nil
	}
	return b
}

// put keeps b unless states of a newer revision are kept; past the bound
// it drops some other base first.
func (c *docStates) put(k baseKey, b *baseStates) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.bases[k]; old != nil && old.revision > b.revision {
		return
	}
	if _, ok := c.bases[k]; !ok && len(c.bases) >= docStatesBases {
		for other := range c.bases { // map order: an arbitrary base
			delete(c.bases, other)
			break
		}
	}
	c.bases[k] = b
}

// view is what one retrieval knows of its knowledge bases: their index
// revisions and their documents' states at those revisions.
type view struct {
	revisions map[int64]int64
	states    []*baseStates
}

// scope is the index scope of the view's bases, leaving out the chunks
// of documents that are not ready and naming the revisions just read.
func (v *view) scope(workspaceID int64, bases []knowledge.Base) knowledge.Scope {
	var skip []int64
	for _, st := range v.states {
		skip = append(skip, st.notReady...)
	}
	return knowledge.Scope{WorkspaceID: workspaceID, KnowledgeIDs: baseIDs(bases), SkipDocuments: skip, Revisions: v.revisions}
}

// documentName is the name of a ready document of the view's bases.
func (v *view) documentName(id int64) (string, bool) {
	for _, st := range v.states {
		if name, ok := st.names[id]; ok {
			return name, true
		}
	}
	return "", false
}

// viewOf reads the bases' revisions, then the states of the documents of
// those whose states are not cached at their revision (in that order: a
// status written after the revision was read is read at a revision that
// a later Touch makes stale).
func (s *Service) viewOf(ctx context.Context, workspaceID int64, bases []knowledge.Base) (*view, error) {
	ids := baseIDs(bases)
	revs, err := s.d.Index.Revisions(ctx, workspaceID, ids)
	if err != nil {
		return nil, fmt.Errorf("read the index revisions: %w", err)
	}
	v := &view{revisions: revs}
	now := s.d.Now()
	var missing []int64
	for _, id := range ids {
		if st := s.states.get(baseKey{workspaceID, id}, revs[id], now); st != nil {
			v.states = append(v.states, st)
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return v, nil
	}
	docs, err := s.d.Documents.DocumentStates(ctx, workspaceID, missing)
	if err != nil {
		return nil, fmt.Errorf("read the states of documents: %w", err)
	}
	for _, id := range missing {
		st := &baseStates{revision: revs[id], read: now, names: map[int64]string{}}
		for _, d := range docs {
			switch {
			case d.KnowledgeID != id:
			case d.Status == knowledge.StatusReady:
				st.names[d.ID] = d.Name
			default:
				st.notReady = append(st.notReady, d.ID)
			}
		}
		s.states.put(baseKey{workspaceID, id}, st)
		v.states = append(v.states, st)
	}
	return v, nil
}

// touch announces that a document's status or name changed: its base's
// revision grows, so that every process reads its documents' states
// again. A failure is logged: the states are read again within
// docStatesTTL anyway.
func (s *Service) touch(ctx context.Context, d *knowledge.Document) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.d.Index.Touch(ctx, d.WorkspaceID, d.KnowledgeID); err != nil {
		s.d.Log.WarnContext(ctx, "knowledge: could not announce a document's new state; other processes see it within a minute",
			"document", d.ID, "err", err)
	}
}
