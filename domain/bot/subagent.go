package bot

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Limits of a bot's sub-agents.
const (
	MaxSubAgents          = 10
	MaxSubAgentDescLen    = 1000
	DefaultSubAgentDepth  = 3
	DefaultTurnModelCalls = 50
)

// SubAgent is another bot of the same workspace that a bot calls as a
// tool: the model writes it a task, the sub-bot's published version runs
// it in a conversation of its own, and its final answer is the tool's
// result.
type SubAgent struct {
	BotID int64
	// Description tells the model when to call the sub-agent; it is the
	// tool's description.
	Description string
	// ReturnDirectly ends the caller's turn with the sub-agent's answer
	// as the answer, without another model call.
	ReturnDirectly bool
}

// SubAgentIDs lists the bots a configuration calls as sub-agents.
func (c *Config) SubAgentIDs() []int64 {
	out := make([]int64, len(c.SubAgents))
	for i, s := range c.SubAgents {
		out[i] = s.BotID
	}
	return out
}

// validateSubAgents checks the list and names the first wrong field: ids
// set and not repeated, descriptions present and bounded. That each is a
// bot of the workspace, and that no cycle forms, is checked where bots can
// be read.
func (c *Config) validateSubAgents() error {
	if len(c.SubAgents) > MaxSubAgents {
		return errs.Invalid("sub_agents", "at most %d sub-agents, got %d", MaxSubAgents, len(c.SubAgents))
	}
	seen := map[int64]bool{}
	for i := range c.SubAgents {
		s := &c.SubAgents[i]
		at := "sub_agents[" + strconv.Itoa(i) + "]"
		s.Description = strings.TrimSpace(s.Description)
		if s.BotID <= 0 {
			return errs.Invalid(at+".bot_id", "is required")
		}
		if seen[s.BotID] {
			return errs.Invalid(at+".bot_id", "bot %d is listed twice", s.BotID)
		}
		seen[s.BotID] = true
		if s.Description == "" {
			return errs.Invalid(at+".description", "is required: it tells the model when to call this sub-agent")
		}
		if utf8.RuneCountInString(s.Description) > MaxSubAgentDescLen {
			return errs.Invalid(at+".description", "must be at most %d characters", MaxSubAgentDescLen)
		}
	}
	return nil
}

// SubAgentToolName derives a tool name from a sub-bot's name: lower-case
// ASCII letters and digits, other runs of characters as one underscore,
// at most 48 characters; a name with no such letters becomes bot_{id}.
func SubAgentToolName(name string, botID int64) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
		default:
			under = true
		}
		if b.Len() >= 48 {
			break
		}
	}
	out := b.String()
	if out == "" {
		return "bot_" + strconv.FormatInt(botID, 10)
	}
	if out[0] >= '0' && out[0] <= '9' {
		out = "bot_" + out
	}
	return out
}
