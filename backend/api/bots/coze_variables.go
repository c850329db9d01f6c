package bots

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/cloudwego/hertz/pkg/app"

	botapp "github.com/pergola-ai/pergola/application/bot"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// cozeVariablesTarget is what GET and PUT /v1/variables name: the bot and
// the end user.
type cozeVariablesTarget struct {
	AppID        string `json:"app_id"`
	BotID        idText `json:"bot_id"`
	ConnectorID  string `json:"connector_id"`
	ConnectorUID string `json:"connector_uid"`
}

// resolve returns the bot id and the end user. Coze apps do not exist
// here; an absent connector_uid means the caller's own user id, as Coze
// does for the account that owns the token.
func (t cozeVariablesTarget) resolve(c *app.RequestContext) (int64, botapp.EndUser, error) {
	if t.BotID == "" && t.AppID != "" {
		return 0, botapp.EndUser{}, errs.Invalid("app_id", "apps are not supported; pass bot_id")
	}
	id, err := t.BotID.parse("bot_id", true)
	if err != nil {
		return 0, botapp.EndUser{}, err
	}
	uid := t.ConnectorUID
	if uid == "" {
		uid = strconv.FormatInt(httpx.Caller(c).UserID, 10)
	}
	if utf8.RuneCountInString(uid) > 255 {
		return 0, botapp.EndUser{}, errs.Invalid("connector_uid", "must be at most 255 characters")
	}
	if len(t.ConnectorID) > 64 {
		return 0, botapp.EndUser{}, errs.Invalid("connector_id", "must be at most 64 characters")
	}
	return id, botapp.EndUser{UserID: uid, ConnectorID: t.ConnectorID}, nil
}

// Variables answers GET /v1/variables?bot_id&connector_uid&connector_id&keywords
// with {items}: one per variable the bot defines, or per keyword asked.
func (h Coze) Variables(ctx context.Context, c *app.RequestContext) error {
	target := cozeVariablesTarget{AppID: string(c.Query("app_id")), BotID: idText(c.Query("bot_id")),
		ConnectorID: string(c.Query("connector_id")), ConnectorUID: string(c.Query("connector_uid"))}
	id, u, err := target.resolve(c)
	if err != nil {
		return err
	}
	items, err := h.Svc.UserVariables(ctx, httpx.Caller(c), id, u, queryList(c, "keywords"))
	if err != nil {
		return err
	}
	out := make([]cozeVariableItem, len(items))
	for i, it := range items {
		out[i] = cozeVariableItem{Keyword: it.Keyword, Value: it.Value, CreateTime: httpx.Unix(it.CreatedAt), UpdateTime: httpx.Unix(it.UpdatedAt)}
	}
	httpx.OK(c, map[string]any{"items": out})
	return nil
}

// SetVariables answers PUT /v1/variables {bot_id, connector_uid,
// connector_id, data:[{keyword, value}]} with {}.
func (h Coze) SetVariables(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		cozeVariablesTarget
		Data []kvDTO `json:"data"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	id, u, err := req.resolve(c)
	if err != nil {
		return err
	}
	if err := h.Svc.SetUserVariables(ctx, httpx.Caller(c), id, u, toKVs(req.Data)); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
