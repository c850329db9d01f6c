package app

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/errs"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Variables gives the workflow engine the app variables of a run's end
// user, within the run's workspace.
type Variables struct{ apps app.Store }

var _ wf.AppVariableStore = Variables{}

// NewVariables returns the engine's app variable store over apps.
func NewVariables(apps app.Store) Variables { return Variables{apps: apps} }

// AppVariables returns every variable of the run's app with its value.
func (v Variables) AppVariables(ctx context.Context, s wf.Scope) (map[string]any, error) {
	a, err := v.app(ctx, s)
	if err != nil {
		return nil, err
	}
	stored, err := v.apps.Values(ctx, scopeOf(s))
	if err != nil {
		return nil, err
	}
	return a.Resolve(stored), nil
}

// SetAppVariables stores values the app declares, of their types.
func (v Variables) SetAppVariables(ctx context.Context, s wf.Scope, values map[string]any) error {
	a, err := v.app(ctx, s)
	if err != nil {
		return err
	}
	for name, val := range values {
		d, ok := a.Find(name)
		if !ok {
			return errs.Invalid("app."+name, "app %d declares no variable %q", a.ID, name)
		}
		if err := app.CheckValue(d.Type, val); err != nil {
			return errs.Invalid("app."+name, "%v", err)
		}
	}
	return v.apps.SetValues(ctx, scopeOf(s), values)
}

// app loads the run's app, which must be of the run's workspace.
func (v Variables) app(ctx context.Context, s wf.Scope) (*app.App, error) {
	a, err := v.apps.GetApp(ctx, s.AppID)
	if err != nil {
		return nil, err
	}
	if a.WorkspaceID != s.WorkspaceID {
		return nil, errs.NotFound("app", strconv.FormatInt(s.AppID, 10))
	}
	return a, nil
}

func scopeOf(s wf.Scope) app.Scope {
	return app.Scope{AppID: s.AppID, ConnectorID: s.ConnectorID, UserID: s.UserID}
}

// AppWorkspace returns the workspace of an app, for the runs that name it.
func (v Variables) AppWorkspace(ctx context.Context, id int64) (int64, error) {
	a, err := v.apps.GetApp(ctx, id)
	if err != nil {
		return 0, err
	}
	return a.WorkspaceID, nil
}
