package workflow

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// memStore is an in-memory workflow.Store and workflow.RunStore.
type memStore struct {
	mu        sync.Mutex
	workflows map[int64]*workflow.Workflow
	versions  map[int64][]workflow.Version
	runs      map[int64]*workflow.Run
	nodes     map[int64][]workflow.NodeRun
	ids       atomic.Int64
	saved     int // runs stored in one write (SaveRun)
	created   int // runs stored when they started (CreateRun, StartRun)
	instances map[int64]string
	beats     map[string]time.Time
}

func newMemStore() *memStore {
	return &memStore{workflows: map[int64]*workflow.Workflow{}, versions: map[int64][]workflow.Version{},
		runs: map[int64]*workflow.Run{}, nodes: map[int64][]workflow.NodeRun{}, instances: map[int64]string{},
		beats: map[string]time.Time{}}
}

func (m *memStore) Next() int64 { return m.ids.Add(1) + 1000 }

func (m *memStore) CreateWorkflow(_ context.Context, w *workflow.Workflow) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	w.ID, w.DraftRevision, w.CreatedAt = m.Next(), 1, time.Now()
	c := *w
	m.workflows[w.ID] = &c
	return nil
}

func (m *memStore) GetWorkflow(_ context.Context, id int64) (*workflow.Workflow, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.workflows[id]
	if !ok {
		return nil, workflow.NotFound(id)
	}
	c := *w
	return &c, nil
}

func (m *memStore) ListWorkflows(_ context.Context, ws int64, f workflow.ListFilter, _ identity.Page) ([]workflow.Workflow, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []workflow.Workflow
	for _, w := range m.workflows {
		if w.WorkspaceID == ws && (!f.PublishedOnly || w.IsPublished()) {
			out = append(out, *w)
		}
	}
	slices.SortFunc(out, func(a, b workflow.Workflow) int { return int(b.ID - a.ID) })
	return out, int64(len(out)), nil
}

func (m *memStore) UpdateWorkflow(_ context.Context, ws, id int64, fn func(*workflow.Workflow) error) (*workflow.Workflow, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.workflows[id]
	if !ok || w.WorkspaceID != ws {
		return nil, workflow.NotFound(id)
	}
	c := *w
	if err := fn(&c); err != nil {
		return nil, err
	}
	w.Name, w.Description, w.Definition = c.Name, c.Description, c.Definition
	w.DraftRevision++
	out := *w
	return &out, nil
}

func (m *memStore) DeleteWorkflow(_ context.Context, ws, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w, ok := m.workflows[id]; !ok || w.WorkspaceID != ws {
		return workflow.NotFound(id)
	}
	delete(m.workflows, id)
	delete(m.versions, id)
	return nil
}

func (m *memStore) PublishWorkflow(_ context.Context, ws int64, v *workflow.Version) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.workflows[v.WorkflowID]
	if !ok || w.WorkspaceID != ws {
		return workflow.NotFound(v.WorkflowID)
	}
	v.Number = int64(len(m.versions[v.WorkflowID]) + 1)
	m.versions[v.WorkflowID] = append(m.versions[v.WorkflowID], *v)
	w.PublishedVersion = v.Number
	return nil
}

func (m *memStore) GetVersion(_ context.Context, id, n int64) (*workflow.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	vs := m.versions[id]
	if n < 1 || int(n) > len(vs) {
		return nil, errs.NotFound("version", "x")
	}
	v := vs[n-1]
	return &v, nil
}

func (m *memStore) ListVersions(_ context.Context, id int64) ([]workflow.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.versions[id])
	slices.Reverse(out)
	return out, nil
}

func (m *memStore) CreateRun(_ context.Context, r *workflow.Run) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *r
	m.runs[r.ID] = &c
	m.created++
	return nil
}

func (m *memStore) FinishRun(_ context.Context, r *workflow.Run) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *r
	m.runs[r.ID] = &c
	return nil
}

func (m *memStore) SaveRun(_ context.Context, r *workflow.Run, nodes []workflow.NodeRun) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[r.ID]; ok {
		return errs.Conflict("run %d already exists", r.ID)
	}
	c := *r
	m.runs[r.ID] = &c
	m.nodes[r.ID] = slices.Clone(nodes)
	m.saved++
	return nil
}

func (m *memStore) StartRun(ctx context.Context, r *workflow.Run, instance string) error {
	m.CreateRun(ctx, r)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.instances[r.ID] = instance
	return nil
}

func (m *memStore) Beat(_ context.Context, instance string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.beats[instance] = time.Now()
	return nil
}

func (m *memStore) Forget(_ context.Context, instance string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.beats, instance)
	return nil
}

func (m *memStore) FailOrphanedRuns(_ context.Context, self string, aliveSince time.Time, reason string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for id, inst := range m.instances {
		r := m.runs[id]
		if beat, ok := m.beats[inst]; inst == self || r.Status != workflow.RunRunning || ok && !beat.Before(aliveSince) {
			continue
		}
		r.Status, r.Error = workflow.RunFailed, reason
		n++
	}
	return n, nil
}

func (m *memStore) GetRun(_ context.Context, id int64) (*workflow.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[id]
	if !ok {
		return nil, errs.NotFound("run", "x")
	}
	c := *r
	return &c, nil
}

func (m *memStore) AddNodeRuns(_ context.Context, recs []workflow.NodeRun) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range recs {
		m.nodes[r.RunID] = append(m.nodes[r.RunID], r)
	}
	return nil
}

func (m *memStore) ListNodeRuns(_ context.Context, id int64) ([]workflow.NodeRun, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.nodes[id])
	slices.SortFunc(out, func(a, b workflow.NodeRun) int { return int(a.Seq - b.Seq) })
	return out, nil
}

// memAccess grants roles per workspace and user.
type memAccess map[int64]map[int64]identity.Role

func (a memAccess) Authorize(_ context.Context, p identity.Principal, ws int64, min identity.Role) (*identity.Member, error) {
	role, ok := a[ws][p.UserID]
	if !ok || !role.AtLeast(min) || !p.TokenAllowsWorkspace(ws) {
		return nil, errs.Forbidden("not a member of workspace %d", ws)
	}
	return &identity.Member{WorkspaceID: ws, UserID: p.UserID, Role: role}, nil
}

// memBots places bots in workspaces.
type memBots map[int64]int64

func (b memBots) BotWorkspace(_ context.Context, id int64) (int64, error) {
	ws, ok := b[id]
	if !ok {
		return 0, errs.NotFound("bot", "x")
	}
	return ws, nil
}

// fixture is a service over in-memory stores: workspace 1 with Ada
// (owner) and Bo (member), workspace 2 with Cy.
type fixture struct {
	svc   *Service
	store *memStore
	ada   identity.Principal
	bo    identity.Principal
	cy    identity.Principal
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store := newMemStore()
	hist := NewHistory(store, nil)
	t.Cleanup(hist.Close)
	eng := wf.New(wf.Config{Workflows: NewLoader(store), History: hist})
	access := memAccess{1: {1: identity.RoleOwner, 2: identity.RoleMember}, 2: {3: identity.RoleOwner}}
	svc := New(Deps{Store: store, Runs: store, Writer: store, Access: access, Bots: memBots{7: 1, 8: 2}, Engine: eng,
		History: hist, IDs: store})
	all := []string{identity.ScopeAll}
	return &fixture{svc: svc, store: store,
		ada: identity.Principal{UserID: 1, Scopes: all}, bo: identity.Principal{UserID: 2, Scopes: all}, cy: identity.Principal{UserID: 3, Scopes: all}}
}
