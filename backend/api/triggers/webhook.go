package triggers

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	triggerapp "github.com/pergola-ai/pergola/application/trigger"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// Webhook serves POST /v1/triggers/:id/webhook, authenticated by the
// trigger's secret rather than a token.
type Webhook struct {
	Svc *triggerapp.Service
}

type webhookAnswer struct {
	ExecuteID httpx.ID        `json:"execute_id"`
	Output    json.RawMessage `json:"output,omitempty"`
	Duplicate bool            `json:"duplicate,omitempty"`
}

// Call runs the trigger's workflow with the query and the JSON body: 202
// with the execute id (async), or the workflow's output with the status
// it asks for (sync). Idempotency-Key (or X-Request-Id) makes a repeat
// answer the first call's execute id without a second run.
func (h Webhook) Call(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	query := map[string]string{}
	c.QueryArgs().VisitAll(func(k, v []byte) { query[string(k)] = string(v) })
	key := string(c.GetHeader("Idempotency-Key"))
	if key == "" {
		key = string(c.GetHeader("X-Request-Id"))
	}
	a, err := h.Svc.Webhook(ctx, triggerapp.Call{TriggerID: id, Body: c.Request.Body(), Query: query, RequestID: key,
		Header: func(name string) string { return string(c.GetHeader(name)) }})
	if err != nil {
		return err
	}
	status := a.Status
	if a.Duplicate {
		status = http.StatusOK
	}
	c.JSON(status, httpx.Envelope{Data: webhookAnswer{ExecuteID: httpx.ID(a.RunID), Output: a.Output, Duplicate: a.Duplicate}})
	return nil
}
