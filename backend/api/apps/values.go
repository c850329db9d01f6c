package apps

import (
	"context"
	"encoding/json"

	"github.com/cloudwego/hertz/pkg/app"

	appapp "github.com/pergola-ai/pergola/application/app"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// maxResetNames bounds the names of one reset.
const maxResetNames = 100

// ValuesDTO is the values of an end user in an app.
type ValuesDTO struct {
	UserID      string     `json:"user_id"`
	ConnectorID string     `json:"connector_id"`
	Values      []ValueDTO `json:"values"`
}

// ValueDTO is one variable's value; IsDefault when none is stored.
type ValueDTO struct {
	Name      string          `json:"name"`
	Type      string          `json:"type"`
	Value     json.RawMessage `json:"value"`
	IsDefault bool            `json:"is_default"`
}

// resetBody is the body of POST /api/apps/:id/values/reset.
type resetBody struct {
	UserID      string   `json:"user_id"`
	ConnectorID string   `json:"connector_id"`
	Names       []string `json:"names"`
}

// Values answers GET /api/apps/:id/values?user_id=&connector_id=.
func (h Console) Values(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	u := appapp.EndUser{UserID: string(c.Query("user_id")), ConnectorID: string(c.Query("connector_id"))}
	items, err := h.Svc.Values(ctx, httpx.Caller(c), id, u)
	if err != nil {
		return err
	}
	out := ValuesDTO{UserID: u.UserID, ConnectorID: u.ConnectorID, Values: make([]ValueDTO, len(items))}
	if out.ConnectorID == "" {
		out.ConnectorID = appapp.APIConnector
	}
	for i, it := range items {
		raw, err := json.Marshal(it.Value)
		if err != nil {
			return err
		}
		out.Values[i] = ValueDTO{Name: it.Name, Type: it.Type, Value: raw, IsDefault: it.IsDefault}
	}
	httpx.OK(c, out)
	return nil
}

// ResetValues answers POST /api/apps/:id/values/reset: the named values
// of the end user (all when names is empty) go back to their defaults.
func (h Console) ResetValues(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var body resetBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	if len(body.Names) > maxResetNames {
		return errs.Invalid("names", "at most %d, got %d", maxResetNames, len(body.Names))
	}
	u := appapp.EndUser{UserID: body.UserID, ConnectorID: body.ConnectorID}
	if err := h.Svc.ResetValues(ctx, httpx.Caller(c), id, u, body.Names); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
