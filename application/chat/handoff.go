package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// DefaultMaxHandoffs bounds the handoffs of one turn when Deps leaves
// MaxHandoffs zero.
const DefaultMaxHandoffs = 3

// transferTool hands the conversation to another bot of the workspace
// (bot.Handoff): the target answers the rest of the turn and the next
// turns, until it hands the conversation back or on. A transfer the
// runtime refuses (the turn's handoffs are used up, the target is not
// published where the turn runs) is a result the model reads.
type transferTool struct {
	to   bot.Handoff
	name string
}

func (transferTool) ToolOrigin() string { return "handoff" }

func (t transferTool) Info(context.Context) (*schema.ToolInfo, error) {
	desc := "Transfer the conversation to the bot " + strconv.Quote(t.to.Name) + ", which then answers the user, in this turn and the next ones."
	if d := strings.TrimSpace(t.to.Description); d != "" {
		desc += " When to transfer: " + d
	}
	return &schema.ToolInfo{Name: t.name, Desc: desc, ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"note": {Type: schema.String, Desc: "what the other bot should know: the user's request and what was done so far"},
	})}, nil
}

func (t transferTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct {
		Note string `json:"note"`
	}
	_ = json.Unmarshal([]byte(args), &in) // a transfer without a note is still a transfer
	rs := runFrom(ctx)
	refusal, err := rs.s.requestHandoff(ctx, rs, t.to, in.Note)
	if err != nil || refusal != "" {
		return refusal, err
	}
	if err := react.SetReturnDirectly(ctx); err != nil {
		return "", err
	}
	return "Transferred the conversation to " + strconv.Quote(t.to.Name) + ".", nil
}

// handoff is a transfer a tool asked for during the rounds: the target's
// published version, and the note for it.
type handoff struct {
	bot     *bot.Bot
	cfg     *bot.Config
	version int64
	note    string
}

// requestHandoff checks a transfer and notes it for the turn to follow
// once the rounds end. It returns the refusal the model reads instead
// when the turn's handoffs are used up or the target is not published to
// the connector the turn runs in.
func (s *Service) requestHandoff(ctx context.Context, rs *runState, to bot.Handoff, note string) (string, error) {
	rs.mu.Lock()
	done := rs.handoffs
	rs.mu.Unlock()
	if done >= s.d.MaxHandoffs {
		return fmt.Sprintf("error: this turn reached its limit of %d handoffs; answer the user yourself", done), nil
	}
	if s.d.Published == nil {
		return "error: handoffs are not available here; answer the user yourself", nil
	}
	c := rs.t.chat
	if home := rs.t.home; home != nil && to.BotID == home.bot.ID {
		// Back to the conversation's own bot: it runs as the chat does.
		rs.mu.Lock()
		defer rs.mu.Unlock()
		rs.handoffs++
		rs.handoff = &handoff{bot: home.bot, cfg: home.cfg, version: home.version, note: strings.TrimSpace(note)}
		return "", nil
	}
	b, v, err := s.d.Published.ResolvePublished(ctx, to.BotID, targetConnector(c.ConnectorID))
	switch {
	case errors.Is(err, errs.ErrForbidden):
		return fmt.Sprintf("error: cannot transfer to %q: it is not published to this channel; answer the user yourself", to.Name), nil
	case errors.Is(err, errs.ErrNotFound) || (err == nil && b.WorkspaceID != c.WorkspaceID):
		return fmt.Sprintf("error: cannot transfer to %q: the bot no longer exists; answer the user yourself", to.Name), nil
	case err != nil:
		return "", fmt.Errorf("transfer to bot %d: %w", to.BotID, err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.handoffs++
	rs.handoff = &handoff{bot: b, cfg: &v.Config, version: v.Number, note: strings.TrimSpace(note)}
	return "", nil
}

// targetConnector is the connector whose published version a handoff
// target runs: the channel's for a channel, the API's for the API, the
// OpenAI-compatible endpoint and the builder's debug chat.
func targetConnector(connector string) string {
	switch connector {
	case ConnectorDebug, ConnectorOpenAI:
		return ConnectorAPI
	}
	return connector
}

var notToolChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// transferTools returns one transfer tool per handoff target, named
// transfer_to_<target name> (letters, digits, _ and - only) or, when that
// name is empty or taken by another tool, transfer_to_bot_<id>.
func transferTools(cfg *bot.Config, taken map[string]bool) []tool.BaseTool {
	var out []tool.BaseTool
	for _, h := range cfg.Handoffs {
		name := "transfer_to_" + strings.Trim(notToolChars.ReplaceAllString(h.Name, "_"), "_")
		if len(name) > 64 {
			name = name[:64]
		}
		if name == "transfer_to_" || taken[name] {
			name = "transfer_to_bot_" + strconv.FormatInt(h.BotID, 10)
		}
		taken[name] = true
		if h.Name == "" {
			h.Name = "bot " + strconv.FormatInt(h.BotID, 10)
		}
		out = append(out, transferTool{to: h, name: name})
	}
	return out
}

// toolNames is the set of the tools' names.
func toolNames(ctx context.Context, tools []tool.BaseTool) map[string]bool {
	out := make(map[string]bool, len(tools))
	for _, t := range tools {
		if info, err := t.Info(ctx); err == nil {
			out[info.Name] = true
		}
	}
	return out
}
