package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
)

// App variables: an input reads one as the variable app.<name>, and a
// variable_assign node assigns the inputs its config lists under app. They
// belong to the run's app (Scope.AppID) and its end user, are read from
// the store once per run, and are shared by the app's workflows and
// their sub-workflows.

// appPrefix starts the variable name of an app variable.
const appPrefix = "app."

// isAppVariable reports whether name reads an app variable.
func isAppVariable(name string) bool {
	rest, ok := strings.CutPrefix(name, appPrefix)
	return ok && keywordPattern.MatchString(rest)
}

// appVariable reads one app variable of the run's end user.
func (rc *runCtx) appVariable(ctx context.Context, name string) (any, error) {
	if err := rc.loadAppVariables(ctx); err != nil {
		return nil, err
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	v, ok := rc.appVars[name]
	if !ok {
		return nil, fmt.Errorf("app %d has no variable %q", rc.in.Scope.AppID, name)
	}
	return cloneValue(v), nil
}

func (rc *runCtx) loadAppVariables(ctx context.Context) error {
	rc.mu.Lock()
	loaded := rc.appVars != nil
	rc.mu.Unlock()
	if loaded {
		return nil
	}
	store, s := rc.eng.ports.AppVars, rc.in.Scope
	if store == nil {
		return errors.New("app variables are not available in this process")
	}
	if s.AppID == 0 {
		return errors.New("reading app variables needs an app: run the workflow with app_id")
	}
	got, err := store.AppVariables(ctx, s)
	if err != nil {
		return fmt.Errorf("read variables of app %d: %w", s.AppID, err)
	}
	rc.mu.Lock()
	if rc.appVars == nil {
		rc.appVars = maps.Clone(got)
		if rc.appVars == nil {
			rc.appVars = map[string]any{}
		}
	}
	rc.mu.Unlock()
	return nil
}

// assignApp stores app variables of the run's end user.
func assignApp(ctx context.Context, rc *runCtx, values map[string]any) error {
	store, s := rc.eng.ports.AppVars, rc.in.Scope
	if store == nil {
		return permanent(errors.New("app variables are not available in this process"))
	}
	if s.AppID == 0 {
		return permanent(errors.New("assigning app variables needs an app: run the workflow with app_id"))
	}
	if err := store.SetAppVariables(ctx, s, values); err != nil {
		return err
	}
	rc.mu.Lock()
	if rc.appVars != nil {
		for k, v := range values {
			rc.appVars[k] = cloneValue(v)
		}
	}
	rc.mu.Unlock()
	return nil
}
