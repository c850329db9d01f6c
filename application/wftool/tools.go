package wftool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// BotTools gives a bot one tool per bound workflow, named after the
// workflow (made a valid, unique tool name), described by its
// description, taking the start node's parameters. It is called once per
// bot version: the draft's tools describe each workflow's draft, a
// version's tools the pinned versions. A bound workflow deleted since is
// left out. Each call reads its run from the context (bot.RunScopeFrom).
func (s *Service) BotTools(ctx context.Context, b *bot.Bot, cfg *bot.Config) ([]tool.BaseTool, error) {
	if len(cfg.Workflows) == 0 {
		return nil, nil
	}
	draft := cfg == &b.Draft
	names := map[string]bool{}
	var tools []tool.BaseTool
	for _, ref := range cfg.Workflows {
		t, err := s.tool(ctx, b, ref, draft)
		if errors.Is(err, errs.ErrNotFound) {
			s.d.Log.WarnContext(ctx, "a bot binds a workflow that no longer exists", "bot", b.ID, "workflow", ref.WorkflowID, "err", err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("tools of bot %d: workflow %d: %w", b.ID, ref.WorkflowID, err)
		}
		t.info.Name = wf.UniqueToolName(names, t.info.Name)
		tools = append(tools, t)
	}
	return tools, nil
}

// tool builds the tool of one bound workflow from the definition it runs
// when the agent is built.
func (s *Service) tool(ctx context.Context, b *bot.Bot, ref bot.WorkflowRef, draft bool) (*wfTool, error) {
	w, err := s.d.Workflows.GetWorkflow(ctx, ref.WorkflowID)
	if err == nil && w.WorkspaceID != b.WorkspaceID {
		err = workflow.NotFound(ref.WorkflowID)
	}
	if err != nil {
		return nil, err
	}
	t := &wfTool{s: s, workflowID: w.ID, workspaceID: b.WorkspaceID, caller: botCaller(b)}
	if ref.Version != "" {
		t.version, _ = strconv.ParseInt(ref.Version, 10, 64)
	}
	raw := w.Definition
	if !draft {
		if t.version == 0 {
			t.version = w.PublishedVersion
		}
		if t.version == 0 {
			return nil, workflow.NotFound(w.ID) // never published: nothing a published bot may run
		}
		v, err := s.d.Workflows.GetVersion(ctx, w.ID, t.version)
		if err != nil {
			return nil, err
		}
		raw = v.Definition
	}
	shape, err := shapeOf(raw)
	if err != nil {
		return nil, fmt.Errorf("definition: %w", err)
	}
	t.text = shape.text
	desc := w.Description
	if desc == "" {
		desc = "Runs the workflow " + w.Name + "."
	}
	t.info = &schema.ToolInfo{Name: wf.ToolName(w.Name, w.ID), Desc: desc,
		ParamsOneOf: schema.NewParamsOneOfByParams(wf.ToolParams(shape.params))}
	return t, nil
}

// shape is what a tool needs to know of a definition: the start node's
// parameters and whether the end node returns text.
type shape struct {
	params []wf.Param
	text   bool
}

func shapeOf(raw []byte) (shape, error) {
	def, err := wf.Parse(raw)
	if err != nil {
		return shape{}, err
	}
	var sh shape
	for _, n := range def.Nodes {
		switch n.Type {
		case "start":
			sh.params = n.Outputs
		case "end":
			var cfg struct {
				Mode string `json:"mode"`
			}
			if len(n.Config) > 0 {
				_ = json.Unmarshal(n.Config, &cfg)
			}
			sh.text = cfg.Mode == "text"
		}
	}
	return sh, nil
}
