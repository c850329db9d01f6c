package bots

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	botapp "github.com/pergola-ai/pergola/application/bot"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// ModelNamer gives a model's display name; *modelreg.Registry implements
// it.
type ModelNamer interface {
	Get(ctx context.Context, id string) (*llm.Model, error)
}

// Coze serves the Coze-compatible bot and variable routes, in the wire
// shapes Coze's SDKs decode.
type Coze struct {
	Svc       *botapp.Service
	Models    ModelNamer
	Workflows WorkflowReader // names the bound workflows; nil: ids only
	Knowledge KnowledgeNamer // names the bound knowledge bases; nil: ids only
	Plugins   PluginReader   // names the bound plugins; nil: ids only
}

// Create answers POST /v1/bot/create with {bot_id}.
func (h Coze) Create(ctx context.Context, c *app.RequestContext) error {
	var req cozeBotRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	ws, err := req.SpaceID.parse("space_id", true)
	if err != nil {
		return err
	}
	var cfg bot.Config
	if err := req.apply(&cfg, false); err != nil {
		return err
	}
	b, err := h.Svc.Create(ctx, httpx.Caller(c), ws, cfg)
	if err != nil {
		return err
	}
	httpx.OK(c, map[string]any{"bot_id": httpx.ID(b.ID)})
	return nil
}

// Update answers POST /v1/bot/update with {}: the fields present change,
// the others keep their values.
func (h Coze) Update(ctx context.Context, c *app.RequestContext) error {
	var req cozeBotRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	id, err := req.BotID.parse("bot_id", true)
	if err != nil {
		return err
	}
	_, err = h.Svc.Update(ctx, httpx.Caller(c), id, func(cfg *bot.Config) error { return req.apply(cfg, true) })
	if err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// Publish answers POST /v1/bot/publish {bot_id, connector_ids} with
// {bot_id, version}.
func (h Coze) Publish(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		BotID        idText   `json:"bot_id"`
		ConnectorIDs []string `json:"connector_ids"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	id, err := req.BotID.parse("bot_id", true)
	if err != nil {
		return err
	}
	v, err := h.Svc.Publish(ctx, httpx.Caller(c), id, req.ConnectorIDs)
	if err != nil {
		return err
	}
	httpx.OK(c, map[string]any{"bot_id": httpx.ID(id), "version": v.Label()})
	return nil
}

// OnlineInfo answers GET /v1/bot/get_online_info?bot_id with the latest
// published version; a bot never published is 404.
func (h Coze) OnlineInfo(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.QueryID(c, "bot_id", true)
	if err != nil {
		return err
	}
	return h.answerOnline(ctx, c, id)
}

func (h Coze) answerOnline(ctx context.Context, c *app.RequestContext, id int64) error {
	b, v, err := h.Svc.Online(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	out := newCozeBot(b, &v.Config, v.Number, v.CreatedAt, h.modelName(ctx, v.Config.Model.ModelID))
	out.WorkflowInfoList = h.workflowInfos(ctx, httpx.Caller(c), v.Config.Workflows)
	out.PluginInfoList = h.pluginInfos(ctx, httpx.Caller(c), v.Config.Plugins)
	out.Knowledge = h.knowledgeOut(ctx, b.WorkspaceID, v.Config.Knowledge)
	httpx.OK(c, out)
	return nil
}

// Retrieve answers GET /v1/bots/:bot_id?is_published: the published
// version ("true", the default) or the draft ("false", version "0").
func (h Coze) Retrieve(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "bot_id")
	if err != nil {
		return err
	}
	switch q := string(c.Query("is_published")); q {
	case "", "true":
		return h.answerOnline(ctx, c, id)
	case "false":
		b, err := h.Svc.Get(ctx, httpx.Caller(c), id)
		if err != nil {
			return err
		}
		out := newCozeBot(b, &b.Draft, 0, b.UpdatedAt, h.modelName(ctx, b.Draft.Model.ModelID))
		out.WorkflowInfoList = h.workflowInfos(ctx, httpx.Caller(c), b.Draft.Workflows)
		out.PluginInfoList = h.pluginInfos(ctx, httpx.Caller(c), b.Draft.Plugins)
		out.Knowledge = h.knowledgeOut(ctx, b.WorkspaceID, b.Draft.Knowledge)
		httpx.OK(c, out)
		return nil
	default:
		return errs.Invalid("is_published", "must be true or false; got %q", q)
	}
}

// modelName returns the display name of a model, or its id when the
// registry does not know it any more.
func (h Coze) modelName(ctx context.Context, id string) string {
	if h.Models == nil || id == "" {
		return id
	}
	m, err := h.Models.Get(ctx, id)
	if err != nil || m.Name == "" {
		return id
	}
	return m.Name
}

// PublishedList answers GET /v1/space/published_bots_list?space_id&page_index&page_size.
func (h Coze) PublishedList(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "space_id", true)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	list, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, botapp.Published, page)
	if err != nil {
		return err
	}
	out := make([]cozeSimpleBot, len(list))
	for i, b := range list {
		out[i] = cozeSimpleBot{BotID: httpx.ID(b.ID), BotName: b.Draft.Name, Description: b.Draft.Description,
			IconURL: b.Draft.IconURL, PublishTime: strconv.FormatInt(httpx.UnixPtr(b.PublishedAt), 10)}
	}
	httpx.OK(c, map[string]any{"space_bots": out, "total": total})
	return nil
}

// List answers GET /v1/bots?workspace_id&publish_status&page_num&page_size.
func (h Coze) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	which, err := cozeStatus(string(c.Query("publish_status")))
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	list, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, which, page)
	if err != nil {
		return err
	}
	out := make([]cozeListedBot, len(list))
	for i, b := range list {
		out[i] = cozeListedBot{ID: httpx.ID(b.ID), Name: b.Draft.Name, Description: b.Draft.Description, IconURL: b.Draft.IconURL,
			IsPublished: b.IsPublished(), PublishedAt: httpx.UnixPtr(b.PublishedAt), UpdatedAt: httpx.Unix(b.UpdatedAt),
			OwnerUserID: httpx.ID(b.CreatorID)}
	}
	httpx.OK(c, map[string]any{"items": out, "total": total})
	return nil
}

// cozeStatus reads publish_status; Coze's default is published_online.
func cozeStatus(s string) (botapp.Publication, error) {
	switch s {
	case "", "published_online":
		return botapp.Published, nil
	case "all":
		return botapp.AnyPublication, nil
	case "published_draft":
		return botapp.EditedSincePublish, nil
	case "unpublished_draft":
		return botapp.Unpublished, nil
	}
	return 0, errs.Invalid("publish_status", "must be all, published_online, published_draft or unpublished_draft; got %q", s)
}
