package table

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
)

// BotTools gives a bot one SQL tool per bound table, named after the
// table. It is called once per bot version; each call of a tool reads its
// run from the context (bot.RunScopeFrom): the draft's data for a debug
// chat, the online data otherwise, and the end user's rows in per_user
// mode. A bound table deleted since is left out.
func (s *Service) BotTools(ctx context.Context, b *bot.Bot, cfg *bot.Config) ([]tool.BaseTool, error) {
	if len(cfg.Tables) == 0 {
		return nil, nil
	}
	if err := s.available(); err != nil {
		return nil, err
	}
	var tools []tool.BaseTool
	for _, ref := range cfg.Tables {
		t, err := s.d.Tables.GetTable(ctx, ref.TableID)
		if errors.Is(err, errs.ErrNotFound) || err == nil && t.WorkspaceID != b.WorkspaceID {
			s.d.Log.WarnContext(ctx, "a bot binds a table that no longer exists", "bot", b.ID, "table", ref.TableID)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("tools of bot %d: table %d: %w", b.ID, ref.TableID, err)
		}
		tools = append(tools, &sqlTool{s: s, id: t.ID, workspaceID: b.WorkspaceID, info: toolInfo(t)})
	}
	return tools, nil
}

// sqlTool runs the model's SQL on one table.
type sqlTool struct {
	s           *Service
	id          int64
	workspaceID int64
	info        *schema.ToolInfo
}

// Info describes the tool as the table was when the agent was built.
func (t *sqlTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

// ToolOrigin names tables as the origin of the tool, for metrics.
func (t *sqlTool) ToolOrigin() string { return "table" }

// InvokableRun runs one statement and answers with compact JSON, or with
// "error: ..." the model can correct itself from. Only a failure of the
// storage itself is logged; the model then reads that the table is
// unavailable.
func (t *sqlTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct {
		SQL string `json:"sql"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil || strings.TrimSpace(in.SQL) == "" {
		return `error: the arguments must be {"sql": "<one SQL statement>"}`, nil
	}
	run, ok := bot.RunScopeFrom(ctx)
	if !ok {
		return "error: this tool runs only inside a chat", nil
	}
	tb, err := t.s.d.Tables.GetTable(ctx, t.id)
	if errors.Is(err, errs.ErrNotFound) || err == nil && tb.WorkspaceID != t.workspaceID {
		return fmt.Sprintf("error: %s was deleted; it cannot be used any more", t.info.Name), nil
	}
	if err != nil {
		return t.unavailable(ctx, err), nil
	}
	sc := table.Scope{Data: table.DataOnline, UserID: run.UserID}
	if run.Draft() {
		sc.Data = table.DataDraft
	}
	if tb.Confined() && sc.UserID == "" {
		return "error: " + tb.Name + " keeps rows per user, and this chat has no user id", nil
	}
	res, err := t.s.d.Rows.Run(ctx, tb, sc, in.SQL)
	switch {
	case errors.Is(err, errs.ErrInvalid), errors.Is(err, errs.ErrUnavailable):
		return "error: " + err.Error(), nil
	case err != nil:
		return t.unavailable(ctx, err), nil
	}
	return formatResult(res), nil
}

func (t *sqlTool) unavailable(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return "error: the statement was stopped"
	}
	t.s.d.Log.ErrorContext(ctx, "table tool failed", "table", t.id, "err", err)
	return "error: the table cannot be reached right now; try again later"
}

// maxFieldDesc bounds a field's description in the tool's description.
const maxFieldDesc = 200

// toolInfo describes the tool: what it runs, the rules, the columns.
func toolInfo(t *table.Table) *schema.ToolInfo {
	var b strings.Builder
	fmt.Fprintf(&b, "Runs one SQL statement (MySQL dialect) on the table %s: SELECT, INSERT, UPDATE or DELETE on %s only; "+
		"no joins, subqueries, UNION, other tables, comments or placeholders. ", t.Name, t.Name)
	switch t.Mode {
	case table.ModePerUser:
		b.WriteString("Each user has their own rows: statements see and change only the current user's rows. ")
	case table.ModeShared:
		b.WriteString("All users share the rows. ")
	case table.ModeReadOnly:
		b.WriteString("The table is read-only: use SELECT only. ")
	}
	if t.Description != "" {
		b.WriteString("About the table: " + t.Description + " ")
	}
	b.WriteString("Columns:\n- id integer: the row's id, set automatically\n")
	for _, f := range t.Fields {
		fmt.Fprintf(&b, "- %s %s", f.Name, f.Type)
		if f.Required {
			b.WriteString(", required")
		}
		if d := []rune(f.Description); len(d) > 0 {
			b.WriteString(": " + string(d[:min(len(d), maxFieldDesc)]))
		}
		b.WriteString("\n")
	}
	b.WriteString("- created_at, updated_at datetime: set automatically (UTC)\n" +
		"Booleans are TRUE/FALSE, datetimes 'YYYY-MM-DD HH:MM:SS' in UTC. A SELECT answers at most 100 rows as " +
		`{"columns":[...],"rows":[[...]]}; page with LIMIT and OFFSET. Writes answer {"affected_rows":N}. ` +
		"Common functions such as COUNT, SUM, AVG, MIN, MAX, LOWER, UPPER, CONCAT, SUBSTRING, COALESCE, IF, ROUND, NOW, DATE, YEAR, DATE_ADD are available.")
	return &schema.ToolInfo{Name: t.Name, Desc: b.String(), ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"sql": {Type: schema.String, Required: true, Desc: "one SQL statement on " + t.Name + ", MySQL dialect"},
	})}
}
