package workflow

import (
	"context"
	"slices"
	"sort"
	"sync"
)

// fakeConvs keeps named conversations in memory, as the real store does
// for one end user: Default exists from the start and stays.
type fakeConvs struct {
	mu     sync.Mutex
	next   int64
	byName map[string]*fakeConv
}

type fakeConv struct {
	id   int64
	msgs []ConversationMessage
}

func (f *fakeConvs) conv(name string, create bool) (*fakeConv, bool) {
	if f.byName == nil {
		f.byName = map[string]*fakeConv{}
	}
	c, ok := f.byName[name]
	if !ok && (create || name == "Default") {
		f.next++
		c = &fakeConv{id: f.next}
		f.byName[name] = c
		return c, name == "Default"
	}
	return c, ok
}

func (f *fakeConvs) CreateConversation(_ context.Context, _ Scope, name string) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, existed := f.conv(name, true)
	return c.id, existed, nil
}

func (f *fakeConvs) FindConversation(_ context.Context, _ Scope, name string) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.conv(name, false)
	if !ok {
		return 0, false, nil
	}
	return c.id, true, nil
}

func (f *fakeConvs) RenameConversation(_ context.Context, _ Scope, name, newName string) (int64, bool, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.conv(name, false)
	if other, taken := f.byName[newName]; taken {
		return other.id, false, true, nil
	}
	if !ok || name == "Default" {
		return 0, false, false, nil
	}
	delete(f.byName, name)
	f.byName[newName] = c
	return c.id, true, false, nil
}

func (f *fakeConvs) DeleteConversation(_ context.Context, _ Scope, name string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.conv(name, false); !ok || name == "Default" {
		return false, nil
	}
	delete(f.byName, name)
	return true, nil
}

func (f *fakeConvs) ListConversations(context.Context, Scope) ([]NamedConversation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []NamedConversation
	for name, c := range f.byName {
		out = append(out, NamedConversation{ID: c.id, Name: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (f *fakeConvs) ClearConversation(_ context.Context, _ Scope, name string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.conv(name, false)
	if ok {
		c.msgs = nil
	}
	return ok, nil
}

func (f *fakeConvs) History(_ context.Context, _ Scope, name string, rounds int) ([]ConversationMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.conv(name, false)
	if !ok {
		return nil, nil
	}
	return slices.Clone(c.msgs[max(0, len(c.msgs)-2*rounds):]), nil
}

func (f *fakeConvs) ListMessages(_ context.Context, _ Scope, name string, q MessagePage) ([]ConversationMessage, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.conv(name, false)
	if !ok {
		return nil, false, nil
	}
	var out []ConversationMessage
	for i := len(c.msgs) - 1; i >= 0; i-- {
		out = append(out, c.msgs[i])
	}
	return out[:min(len(out), q.Limit)], len(out) > q.Limit, nil
}

func (f *fakeConvs) CreateMessage(_ context.Context, _ Scope, name, role, content string) (ConversationMessage, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.conv(name, false)
	if !ok {
		return ConversationMessage{}, false, nil
	}
	f.next++
	m := ConversationMessage{ID: f.next, Role: role, Content: content}
	c.msgs = append(c.msgs, m)
	return m, true, nil
}

func (f *fakeConvs) EditMessage(_ context.Context, _ Scope, name string, id int64, content string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.conv(name, false)
	for i := range c.msgs {
		if ok && c.msgs[i].ID == id {
			c.msgs[i].Content = content
			return true, nil
		}
	}
	return false, nil
}

func (f *fakeConvs) DeleteMessage(_ context.Context, _ Scope, name string, id int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.conv(name, false)
	if !ok {
		return false, nil
	}
	n := len(c.msgs)
	c.msgs = slices.DeleteFunc(c.msgs, func(m ConversationMessage) bool { return m.ID == id })
	return len(c.msgs) < n, nil
}
