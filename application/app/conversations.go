package app

import (
	"context"
	"errors"
	"strconv"

	"github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	wf "github.com/pergola-ai/pergola/workflow"
)

// DefaultConversation is the conversation template every app has.
const DefaultConversation = app.DefaultConversation

// ConversationDeps is what conversation nodes need.
type ConversationDeps struct {
	Apps  app.Store
	Names app.Conversations
	Convs conversation.Store
	Msgs  conversation.MessageStore
}

// Conversations gives conversation nodes the named conversations of an
// app's end users, stored as Pergola conversations of the app's workspace.
type Conversations struct{ d ConversationDeps }

var _ wf.ConversationStore = Conversations{}

// NewConversations returns the engine's conversation store.
func NewConversations(d ConversationDeps) Conversations { return Conversations{d: d} }

// find returns the scope's conversation of that name (0 when none); that
// of a template is made on first use.
func (c Conversations) find(ctx context.Context, s wf.Scope, name string) (*conversation.Conversation, error) {
	if s.AppID == 0 {
		return c.ownConversation(ctx, s, name)
	}
	id, err := c.d.Names.ConversationID(ctx, scopeOf(s), name)
	if err != nil {
		return nil, err
	}
	if id == 0 {
		var tpl bool
		if tpl, err = c.isTemplate(ctx, s, name); tpl {
			id, _, err = c.CreateConversation(ctx, s, name)
		}
	}
	if id == 0 || err != nil {
		return nil, err
	}
	conv, err := c.d.Convs.GetConversation(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	return conv, err
}

// ownConversation is the conversation a run with no app is a turn of,
// which its nodes name "Default" (Coze's agent scenario); nil for other
// names, for runs that are no conversation's turn, and for a conversation
// of another workspace.
func (c Conversations) ownConversation(ctx context.Context, s wf.Scope, name string) (*conversation.Conversation, error) {
	if name != DefaultConversation {
		return nil, nil
	}
	return c.turnConversation(ctx, s)
}

// turnConversation is the conversation the run is a turn of; nil when it
// is none or the conversation is of another workspace.
func (c Conversations) turnConversation(ctx context.Context, s wf.Scope) (*conversation.Conversation, error) {
	if s.ConversationID == 0 {
		return nil, nil
	}
	conv, err := c.d.Convs.GetConversation(ctx, s.ConversationID)
	if errors.Is(err, errs.ErrNotFound) || err == nil && conv.WorkspaceID != s.WorkspaceID {
		return nil, nil
	}
	return conv, err
}

// CreateConversation makes a conversation of that name, or reports the
// existing one.
func (c Conversations) CreateConversation(ctx context.Context, s wf.Scope, name string) (int64, bool, error) {
	if id, err := c.d.Names.ConversationID(ctx, scopeOf(s), name); err != nil || id != 0 {
		return id, id != 0, err
	}
	if _, err := NewVariables(c.d.Apps).app(ctx, s); err != nil { // the app is the run's workspace's
		return 0, false, err
	}
	conv := &conversation.Conversation{WorkspaceID: s.WorkspaceID, ConnectorID: s.ConnectorID, Name: name,
		MetaData: map[string]string{"app_id": strconv.FormatInt(s.AppID, 10), "user_id": s.UserID}}
	if err := c.d.Convs.CreateConversation(ctx, conv); err != nil {
		return 0, false, err
	}
	err := c.d.Names.NameConversation(ctx, scopeOf(s), name, conv.ID)
	if errors.Is(err, errs.ErrConflict) { // made at the same moment by another run
		_ = c.d.Convs.DeleteConversation(ctx, s.WorkspaceID, conv.ID)
		id, err := c.d.Names.ConversationID(ctx, scopeOf(s), name)
		return id, true, err
	}
	return conv.ID, false, err
}

// FindConversation returns the id of the conversation of that name.
func (c Conversations) FindConversation(ctx context.Context, s wf.Scope, name string) (int64, bool, error) {
	conv, err := c.find(ctx, s, name)
	if conv == nil || err != nil {
		return 0, false, err
	}
	return conv.ID, true, nil
}

// RenameConversation renames a conversation a node made; renaming a
// template fails.
func (c Conversations) RenameConversation(ctx context.Context, s wf.Scope, name, newName string) (int64, bool, bool, error) {
	if err := c.refuseTemplate(ctx, s, name); err != nil {
		return 0, false, false, err
	}
	if other, err := c.d.Names.ConversationID(ctx, scopeOf(s), newName); err != nil || other != 0 {
		return other, false, other != 0, err
	}
	id, err := c.d.Names.ConversationID(ctx, scopeOf(s), name)
	if err != nil || id == 0 {
		return 0, false, false, err
	}
	if err := c.d.Names.RenameConversation(ctx, scopeOf(s), name, newName); err != nil {
		return 0, false, false, err
	}
	_, err = c.d.Convs.UpdateConversation(ctx, s.WorkspaceID, id, func(conv *conversation.Conversation) error {
		conv.Name = newName
		return nil
	})
	return id, err == nil, false, err
}

// DeleteConversation deletes a conversation a node made, with its
// messages; deleting a template fails.
func (c Conversations) DeleteConversation(ctx context.Context, s wf.Scope, name string) (bool, error) {
	if err := c.refuseTemplate(ctx, s, name); err != nil {
		return false, err
	}
	id, err := c.d.Names.ConversationID(ctx, scopeOf(s), name)
	if err != nil || id == 0 {
		return false, err
	}
	if err := c.d.Names.UnnameConversation(ctx, scopeOf(s), name); err != nil {
		return false, err
	}
	return true, c.d.Convs.DeleteConversation(ctx, s.WorkspaceID, id)
}

// ListConversations lists the app's templates, then the end user's
// conversations nodes made, oldest first.
func (c Conversations) ListConversations(ctx context.Context, s wf.Scope) ([]wf.NamedConversation, error) {
	list, err := c.d.Names.NamedConversations(ctx, scopeOf(s))
	if err != nil {
		return nil, err
	}
	out := make([]wf.NamedConversation, len(list))
	for i, n := range list {
		out[i] = wf.NamedConversation{ID: n.ConversationID, Name: n.Name}
	}
	return c.withTemplates(ctx, s, out)
}

// ClearConversation starts a new section: the history is empty again.
func (c Conversations) ClearConversation(ctx context.Context, s wf.Scope, name string) (bool, error) {
	conv, err := c.find(ctx, s, name)
	if conv == nil || err != nil {
		return false, err
	}
	_, err = c.d.Convs.NewSection(ctx, s.WorkspaceID, conv.ID)
	return err == nil, err
}
