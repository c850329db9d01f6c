package bots

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"

	botapp "github.com/pergola-ai/pergola/application/bot"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/variable"
)

// VariableValueDTO is one variable of an end user as the console shows
// it; the times are 0 when the default applies.
type VariableValueDTO struct {
	Keyword   string `json:"keyword"`
	Value     string `json:"value"`
	CreatedAt int64  `json:"created_at"`
	UpdatedAt int64  `json:"updated_at"`
}

// kvDTO is one keyword and value to write.
type kvDTO struct {
	Keyword string `json:"keyword"`
	Value   string `json:"value"`
}

func toKVs(data []kvDTO) []variable.KV {
	out := make([]variable.KV, len(data))
	for i, d := range data {
		out[i] = variable.KV{Keyword: d.Keyword, Value: d.Value}
	}
	return out
}

func (h Console) endUser(c *app.RequestContext) (int64, botapp.EndUser, error) {
	id, err := httpx.PathID(c, "id")
	return id, botapp.EndUser{UserID: string(c.Query("user_id")), ConnectorID: string(c.Query("connector_id"))}, err
}

// Variables answers GET /api/bots/:id/variables?user_id&connector_id&keywords.
func (h Console) Variables(ctx context.Context, c *app.RequestContext) error {
	id, u, err := h.endUser(c)
	if err != nil {
		return err
	}
	return h.answerVariables(ctx, c, id, u, queryList(c, "keywords"))
}

func (h Console) answerVariables(ctx context.Context, c *app.RequestContext, id int64, u botapp.EndUser, keywords []string) error {
	items, err := h.Svc.UserVariables(ctx, httpx.Caller(c), id, u, keywords)
	if err != nil {
		return err
	}
	out := make([]VariableValueDTO, len(items))
	for i, it := range items {
		out[i] = VariableValueDTO{Keyword: it.Keyword, Value: it.Value, CreatedAt: httpx.Unix(it.CreatedAt), UpdatedAt: httpx.Unix(it.UpdatedAt)}
	}
	httpx.OK(c, httpx.List[VariableValueDTO]{Items: out, Total: int64(len(out))})
	return nil
}

// SetVariables answers PUT /api/bots/:id/variables {user_id,
// connector_id?, data:[{keyword, value}]} with the user's variables.
func (h Console) SetVariables(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		UserID      string  `json:"user_id"`
		ConnectorID string  `json:"connector_id"`
		Data        []kvDTO `json:"data"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	u := botapp.EndUser{UserID: req.UserID, ConnectorID: req.ConnectorID}
	if err := h.Svc.SetUserVariables(ctx, httpx.Caller(c), id, u, toKVs(req.Data)); err != nil {
		return err
	}
	return h.answerVariables(ctx, c, id, u, nil)
}

// ResetVariables answers DELETE /api/bots/:id/variables?user_id&connector_id&keywords.
func (h Console) ResetVariables(ctx context.Context, c *app.RequestContext) error {
	id, u, err := h.endUser(c)
	if err != nil {
		return err
	}
	if err := h.Svc.ResetUserVariables(ctx, httpx.Caller(c), id, u, queryList(c, "keywords")); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
