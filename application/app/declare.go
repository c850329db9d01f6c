package app

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Declarations are the app variables a workflow imported into an app uses:
// their names, and the types of those the import knows (string otherwise).
type Declarations struct {
	Names []string
	Types map[string]string
}

// CheckDeclare tells, without storing anything, whether Declare would
// succeed: the app is one of the workspace's that the caller may see, and
// the variables it lacks can be added.
func (s *Service) CheckDeclare(ctx context.Context, p identity.Principal, workspaceID, id int64, d Declarations) error {
	a, err := s.appOf(ctx, p, workspaceID, id)
	if err != nil {
		return err
	}
	declare(a, d)
	return a.Validate()
}

// Declare adds to the app of the workspace the variables it does not
// declare yet, with no default, and returns the names added.
func (s *Service) Declare(ctx context.Context, p identity.Principal, workspaceID, id int64, d Declarations) ([]string, error) {
	if _, err := s.appOf(ctx, p, workspaceID, id); err != nil {
		return nil, err
	}
	var added []string
	_, err := s.apps.UpdateApp(ctx, workspaceID, id, func(a *app.App) error {
		added = declare(a, d)
		return a.Validate()
	})
	return added, err
}

// appOf loads an app the caller may see and checks it is the workspace's.
func (s *Service) appOf(ctx context.Context, p identity.Principal, workspaceID, id int64) (*app.App, error) {
	a, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if a.WorkspaceID != workspaceID {
		return nil, errs.Invalid("app_id", "app %s is not an app of workspace %d", strconv.FormatInt(id, 10), workspaceID)
	}
	return a, nil
}

// declare appends the variables a lacks and returns their names.
func declare(a *app.App, d Declarations) []string {
	var added []string
	for _, name := range d.Names {
		if _, ok := a.Find(name); ok {
			continue
		}
		typ := d.Types[name]
		if typ == "" {
			typ = app.TypeString
		}
		a.Variables = append(a.Variables, app.Variable{Name: name, Type: typ, Description: "declared by an import from Coze Studio"})
		added = append(added, name)
	}
	return added
}
