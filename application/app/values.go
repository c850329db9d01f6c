package app

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// APIConnector is the connector of runs through the Coze-compatible API,
// the one an end user is on when none is named.
const APIConnector = "1024"

// maxUserIDLen bounds the end user id a builder names.
const maxUserIDLen = 255

// EndUser names an end user of an app: on a connector ("" for the API's)
// with the user id the runs gave.
type EndUser struct {
	ConnectorID string
	UserID      string
}

// ValueItem is the value of one variable for an end user; IsDefault when
// nothing is stored, so the default (or the zero value) applies.
type ValueItem struct {
	Name      string
	Type      string
	Value     any
	IsDefault bool
}

// Values returns every variable of the app with its value for the end
// user, in the order the app declares them.
func (s *Service) Values(ctx context.Context, p identity.Principal, id int64, u EndUser) ([]ValueItem, error) {
	a, sc, err := s.endUser(ctx, p, id, u)
	if err != nil {
		return nil, err
	}
	stored, err := s.apps.Values(ctx, sc)
	if err != nil {
		return nil, err
	}
	resolved := a.Resolve(stored)
	out := make([]ValueItem, len(a.Variables))
	for i, v := range a.Variables {
		_, set := stored[v.Name]
		out[i] = ValueItem{Name: v.Name, Type: v.Type, Value: resolved[v.Name], IsDefault: !set}
	}
	return out, nil
}

// ResetValues forgets the named values of the end user (all when names
// is empty): they read as their defaults again.
func (s *Service) ResetValues(ctx context.Context, p identity.Principal, id int64, u EndUser, names []string) error {
	a, sc, err := s.endUser(ctx, p, id, u)
	if err != nil {
		return err
	}
	for i, name := range names {
		if _, ok := a.Find(name); !ok {
			return errs.Invalid(fmt.Sprintf("names[%d]", i), "app %d declares no variable %q", id, name)
		}
	}
	return s.apps.DeleteValues(ctx, sc, names)
}

// endUser loads an app the caller may see and the scope of its end user.
func (s *Service) endUser(ctx context.Context, p identity.Principal, id int64, u EndUser) (*app.App, app.Scope, error) {
	if u.UserID == "" || len(u.UserID) > maxUserIDLen {
		return nil, app.Scope{}, errs.Invalid("user_id", "is required: the end user's id the runs gave (ext.user_id), at most %d bytes", maxUserIDLen)
	}
	if u.ConnectorID == "" {
		u.ConnectorID = APIConnector
	}
	if len(u.ConnectorID) > 64 {
		return nil, app.Scope{}, errs.Invalid("connector_id", "is at most 64 bytes")
	}
	a, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, app.Scope{}, err
	}
	return a, app.Scope{AppID: a.ID, ConnectorID: u.ConnectorID, UserID: u.UserID}, nil
}
