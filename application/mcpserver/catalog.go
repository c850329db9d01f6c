package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	botapp "github.com/pergola-ai/pergola/application/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Listing bounds: a token sees at most this many workspaces, and this many
// bots and workflows of each, as tools (clients show every tool to their
// model; hundreds would drown it anyway).
const (
	maxWorkspaces      = 100
	maxToolsPerKind    = 200
	botPrefix          = "chat_"
	workflowPrefix     = "wf_"
	defaultBotDesc     = "Chats with the bot %s."
	defaultWorkflowDsc = "Runs the workflow %s."
)

// ErrUnknownTool is returned by Call for a name the caller has no tool of
// (never published, or of a workspace the token does not reach).
var ErrUnknownTool = errors.New("unknown tool")

// Tools lists the caller's tools: one per bot published to the API and
// one per published workflow, in every workspace the caller belongs to
// and its token reaches. Names are stable: chat_<bot name> and
// wf_<workflow name>, or the id when two would share a name (the oldest
// keeps it). It is computed afresh on every call, so publishing shows at
// once. Kinds the token's scopes do not cover are left out.
func (s *Service) Tools(ctx context.Context, p identity.Principal) ([]Tool, error) {
	views, _, err := s.d.Workspaces.ListWorkspaces(ctx, p, identity.Page{Number: 1, Size: maxWorkspaces})
	if err != nil {
		return nil, fmt.Errorf("mcp tools: workspaces: %w", err)
	}
	var bots, flows []Tool
	for _, v := range views {
		b, err := s.botTools(ctx, p, v.Workspace.ID)
		if err != nil {
			return nil, err
		}
		f, err := s.workflowTools(ctx, p, v.Workspace.ID)
		if err != nil {
			return nil, err
		}
		bots, flows = append(bots, b...), append(flows, f...)
	}
	return append(named(bots, botPrefix), named(flows, workflowPrefix)...), nil
}

// find returns the caller's tool called name, or ErrUnknownTool.
func (s *Service) find(ctx context.Context, p identity.Principal, name string) (*Tool, error) {
	tools, err := s.Tools(ctx, p)
	if err != nil {
		return nil, err
	}
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i], nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownTool, name)
}

// botTools returns the tools of a workspace's bots published to the API,
// named by the bots' names (named finishes them).
func (s *Service) botTools(ctx context.Context, p identity.Principal, workspaceID int64) ([]Tool, error) {
	list, _, err := s.d.Bots.List(ctx, p, workspaceID, botapp.Published, identity.Page{Number: 1, Size: maxToolsPerKind})
	if skippable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp tools: bots of workspace %d: %w", workspaceID, err)
	}
	var out []Tool
	for _, b := range list {
		_, cfg, _, err := s.d.Bots.ResolveForChat(ctx, p, b.ID, false)
		if skippable(err) {
			continue // published, but not to the API; or the token lacks the chat scope
		}
		if err != nil {
			return nil, fmt.Errorf("mcp tools: bot %d: %w", b.ID, err)
		}
		desc := cfg.Description
		if desc == "" {
			desc = fmt.Sprintf(defaultBotDesc, cfg.Name)
		}
		out = append(out, Tool{Name: cfg.Name, Title: cfg.Name, Description: desc, InputSchema: chatInputSchema(),
			OutputSchema: chatOutputSchema(), kind: botTool, id: b.ID, workspaceID: workspaceID, prompt: cfg.Prompt})
	}
	return out, nil
}

// workflowTools returns the tools of a workspace's published workflows,
// their inputs read from the start node of the latest version.
func (s *Service) workflowTools(ctx context.Context, p identity.Principal, workspaceID int64) ([]Tool, error) {
	if s.d.Workflows == nil {
		return nil, nil
	}
	list, _, err := s.d.Workflows.List(ctx, p, workspaceID, workflow.ListFilter{PublishedOnly: true}, identity.Page{Number: 1, Size: maxToolsPerKind})
	if skippable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp tools: workflows of workspace %d: %w", workspaceID, err)
	}
	var out []Tool
	for _, w := range list {
		v, err := s.d.Workflows.GetVersion(ctx, p, w.ID, w.PublishedVersion)
		if skippable(err) || errors.Is(err, errs.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("mcp tools: workflow %d: %w", w.ID, err)
		}
		t, err := workflowToolOf(w, v)
		if err != nil {
			s.d.Log.WarnContext(ctx, "a published workflow cannot be read; not offered over MCP", "workflow", w.ID, "err", err)
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// workflowToolOf describes one published version as a tool.
func workflowToolOf(w workflow.Workflow, v *workflow.Version) (Tool, error) {
	def, err := wf.Parse(v.Definition)
	if err != nil {
		return Tool{}, err
	}
	var params []wf.Param
	for _, n := range def.Nodes {
		if n.Type == "start" {
			params = n.Outputs
		}
	}
	desc := w.Description
	if desc == "" {
		desc = fmt.Sprintf(defaultWorkflowDsc, w.Name)
	}
	return Tool{Name: w.Name, Title: w.Name, Description: desc, InputSchema: objectSchema(params),
		kind: workflowTool, id: w.ID, workspaceID: w.WorkspaceID, version: v.Number, params: params}, nil
}

// skippable reports errors that mean "the caller may not see these": a
// scope the token lacks, a workspace left meanwhile.
func skippable(err error) bool {
	return errors.Is(err, errs.ErrForbidden)
}

// named gives tools their final names: prefix and slug of the name, or
// prefix and id when the slug is empty or taken by an older one.
func named(tools []Tool, prefix string) []Tool {
	slices.SortFunc(tools, func(a, b Tool) int { return cmp.Compare(a.id, b.id) })
	taken := map[string]bool{}
	for i := range tools {
		name := prefix + slug(tools[i].Name)
		if name == prefix || taken[name] {
			name = prefix + strconv.FormatInt(tools[i].id, 10)
		}
		taken[name] = true
		tools[i].Name = name
	}
	return tools
}
