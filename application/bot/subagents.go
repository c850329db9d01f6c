package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// maxSubAgentWalk bounds the bots read while looking for a cycle of
// sub-agents, so a large graph cannot make a save slow.
const maxSubAgentWalk = 200

// checkSubAgents refuses sub-agents that are not bots of the workspace,
// the bot itself, and lists that close a cycle (A calls B, B calls A): a
// cycle is named bot by bot. selfID is 0 for a bot being created, which
// no bot can call yet. The sub-bots' drafts and published versions are
// both followed, since either may run.
func (s *Service) checkSubAgents(ctx context.Context, workspaceID, selfID int64, cfg *bot.Config) error {
	for i, sa := range cfg.SubAgents {
		at := "sub_agents[" + strconv.Itoa(i) + "].bot_id"
		if sa.BotID == selfID {
			return errs.Invalid(at, "a bot cannot be its own sub-agent")
		}
		b, err := s.store.GetBot(ctx, sa.BotID)
		if errors.Is(err, errs.ErrNotFound) || (err == nil && b.WorkspaceID != workspaceID) {
			return errs.Invalid(at, "bot %d does not exist in this workspace; GET /v1/bots?workspace_id=%d lists them", sa.BotID, workspaceID)
		}
		if err != nil {
			return fmt.Errorf("check sub-agent %d: %w", sa.BotID, err)
		}
	}
	if selfID == 0 {
		return nil
	}
	w := &cycleWalk{s: s, self: selfID, seen: map[int64]bool{}}
	for _, sa := range cfg.SubAgents {
		if path, err := w.from(ctx, []int64{selfID, sa.BotID}); err != nil || path != nil {
			if err != nil {
				return err
			}
			return errs.Invalid("sub_agents", "sub-agents form a cycle: %s; remove one of these sub-agents", pathText(path))
		}
	}
	return nil
}

// cycleWalk searches the sub-agent graph for a way back to self.
type cycleWalk struct {
	s    *Service
	self int64
	seen map[int64]bool
}

// from follows the sub-agents of path's last bot depth first and returns
// the path that reaches self again, or nil.
func (w *cycleWalk) from(ctx context.Context, path []int64) ([]int64, error) {
	id := path[len(path)-1]
	if w.seen[id] {
		return nil, nil
	}
	w.seen[id] = true
	if len(w.seen) > maxSubAgentWalk {
		return nil, errs.Invalid("sub_agents", "the sub-agents reach more than %d bots; use fewer", maxSubAgentWalk)
	}
	next, err := w.s.subAgentsOf(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, n := range next {
		p := append(append([]int64{}, path...), n)
		if n == w.self {
			return p, nil
		}
		if found, err := w.from(ctx, p); err != nil || found != nil {
			return found, err
		}
	}
	return nil, nil
}

// subAgentsOf lists the sub-agents of a bot's draft and of its published
// version; a bot deleted meanwhile has none.
func (s *Service) subAgentsOf(ctx context.Context, id int64) ([]int64, error) {
	b, err := s.store.GetBot(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check sub-agents of bot %d: %w", id, err)
	}
	ids := b.Draft.SubAgentIDs()
	if b.IsPublished() {
		v, err := s.store.GetVersion(ctx, id, b.PublishedVersion)
		if err != nil && !errors.Is(err, errs.ErrNotFound) {
			return nil, fmt.Errorf("check sub-agents of bot %d: %w", id, err)
		}
		if v != nil {
			ids = append(ids, v.Config.SubAgentIDs()...)
		}
	}
	return ids, nil
}

// pathText writes a cycle as "bot 1 → bot 2 → bot 1".
func pathText(path []int64) string {
	parts := make([]string, len(path))
	for i, id := range path {
		parts[i] = "bot " + strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, " → ")
}
