package app

import (
	"context"
	"fmt"

	wf "github.com/pergola-ai/pergola/workflow"
)

// isTemplate says whether name is a conversation template of the run's
// app (Default or one the app declares).
func (c Conversations) isTemplate(ctx context.Context, s wf.Scope, name string) (bool, error) {
	if name == DefaultConversation {
		return true, nil
	}
	a, err := NewVariables(c.d.Apps).app(ctx, s)
	if err != nil {
		return false, err
	}
	return a.IsTemplate(name), nil
}

// refuseTemplate fails renaming or deleting a template, as Coze does.
func (c Conversations) refuseTemplate(ctx context.Context, s wf.Scope, name string) error {
	tpl, err := c.isTemplate(ctx, s, name)
	if err != nil || !tpl {
		return err
	}
	return fmt.Errorf("conversation %q is one of the app's conversation templates: only conversations made by nodes can be renamed or deleted", name)
}

// withTemplates lists the app's templates first, in their order, with the
// id of the end user's conversation of each (0 while none was made), then
// the conversations nodes made, as Coze lists them.
func (c Conversations) withTemplates(ctx context.Context, s wf.Scope, named []wf.NamedConversation) ([]wf.NamedConversation, error) {
	a, err := NewVariables(c.d.Apps).app(ctx, s)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]int64, len(named))
	for _, n := range named {
		ids[n.Name] = n.ID
	}
	out := make([]wf.NamedConversation, 0, len(named)+len(a.Conversations)+1)
	for _, t := range a.Templates() {
		out = append(out, wf.NamedConversation{ID: ids[t], Name: t})
	}
	for _, n := range named {
		if !a.IsTemplate(n.Name) {
			out = append(out, n)
		}
	}
	return out, nil
}
