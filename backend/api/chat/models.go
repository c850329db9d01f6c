package chat

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// CallableBots lists and resolves the bots a caller may chat with;
// *bot.Service (application) implements it.
type CallableBots interface {
	Callable(ctx context.Context, p identity.Principal, workspaceIDs []int64) ([]bot.Bot, error)
	ResolveForChat(ctx context.Context, p identity.Principal, botID int64, draft bool) (*bot.Bot, *bot.Config, int64, error)
}

// Workspaces lists the workspaces a caller's token reaches;
// *identity.Service (application) implements it.
type Workspaces interface {
	ListWorkspaces(ctx context.Context, p identity.Principal, page identity.Page) ([]identity.MembershipView, int64, error)
}

// Models serves OpenAI's GET /v1/models: the bots a token may chat with,
// each a model whose id /v1/chat/completions and /v1/responses accept.
type Models struct {
	Bots       CallableBots
	Workspaces Workspaces
}

// model is OpenAI's model object; name is Pergola's addition (the bot's).
type model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	Name    string `json:"name"`
}

func newModel(b *bot.Bot) model {
	return model{ID: strconv.FormatInt(b.ID, 10), Object: "model", Created: httpx.Unix(b.CreatedAt),
		OwnedBy: "workspace-" + strconv.FormatInt(b.WorkspaceID, 10), Name: b.Draft.Name}
}

// List answers GET /v1/models with {"object":"list","data":[model...]}.
func (h Models) List(ctx context.Context, c *app.RequestContext) error {
	p := httpx.Caller(c)
	views, _, err := h.Workspaces.ListWorkspaces(ctx, p, identity.Page{})
	if err != nil {
		return err
	}
	ids := make([]int64, len(views))
	for i, v := range views {
		ids[i] = v.Workspace.ID
	}
	bots, err := h.Bots.Callable(ctx, p, ids)
	if err != nil {
		return err
	}
	data := make([]model, len(bots))
	for i := range bots {
		data[i] = newModel(&bots[i])
	}
	c.JSON(200, map[string]any{"object": "list", "data": data})
	return nil
}

// Get answers GET /v1/models/{model} with the model object, or 404
// model_not_found for what /v1/chat/completions would not run.
func (h Models) Get(ctx context.Context, c *app.RequestContext) error {
	name := c.Param("model")
	id, err := modelBotID(name)
	if err != nil {
		return err
	}
	b, _, _, err := h.Bots.ResolveForChat(ctx, httpx.Caller(c), id, false)
	if err != nil {
		return modelError(name, err)
	}
	c.JSON(200, newModel(b))
	return nil
}

// modelBotID reads a model name: a bot's id, optionally as "bot-<id>".
// Anything else is a model Pergola does not have.
func modelBotID(name string) (int64, error) {
	if strings.TrimSpace(name) == "" {
		return 0, errs.Invalid("model", "is required: the id of a published bot, such as bot-123 (GET /v1/models lists them)")
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(name, "bot-"), 10, 64)
	if err != nil || id <= 0 {
		return 0, modelNotFound(name, "models are the ids of published bots; GET /v1/models lists them")
	}
	return id, nil
}

func modelNotFound(name, hint string) error {
	return httpx.WithOpenAICode(errs.New(errs.ErrNotFound, "The model `%s` does not exist or you do not have access to it; %s", name, hint),
		httpx.OpenAIModelNotFound, "model")
}

// modelError tags the failure to resolve a model's bot: a bot that does
// not exist or cannot be reached is model_not_found; a bot never
// published (bot_id to Pergola) names model as the param.
func modelError(name string, err error) error {
	var fe *errs.FieldError
	switch {
	case httpx.OpenAITagged(err):
		return err // it names its own param
	case errors.Is(err, errs.ErrNotFound):
		return modelNotFound(name, "models are the ids of published bots; GET /v1/models lists them")
	case errors.As(err, &fe) && fe.Field == "bot_id":
		return httpx.WithOpenAICode(err, "", "model")
	}
	return err
}
