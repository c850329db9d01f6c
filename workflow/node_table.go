package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// tableKind is one of the table nodes: query, insert, update, delete and
// custom SQL on one table of the workspace, through the tables service.
type tableKind struct{ op TableOp }

type tableConfig struct {
	TableID idValue           `json:"table_id" jsonschema:"required"`
	Fields  []string          `json:"fields,omitempty" jsonschema:"description=query: the columns returned (default all)"`
	Where   *tableWhereConf   `json:"where,omitempty" jsonschema:"description=query\\, update\\, delete: which rows (delete requires it)"`
	OrderBy []tableOrderConf  `json:"order_by,omitempty" jsonschema:"description=query: sort order"`
	Limit   int               `json:"limit,omitempty" jsonschema:"minimum=0,description=query: at most this many rows (0: the service's cap)"`
	Values  map[string]string `json:"values,omitempty" jsonschema:"description=update: column → the input holding its new value"`
	SQL     string            `json:"sql,omitempty" jsonschema:"description=sql: one statement on the table; {{input}} placeholders become bound parameters"`
}

type tableWhereConf struct {
	Logic      string          `json:"logic,omitempty" jsonschema:"enum=and,enum=or"`
	Conditions []tableCondConf `json:"conditions" jsonschema:"required,minItems=1"`
}

type tableCondConf struct {
	Field string          `json:"field" jsonschema:"required"`
	Op    string          `json:"op" jsonschema:"required,enum=eq,enum=ne,enum=gt,enum=gte,enum=lt,enum=lte,enum=like,enum=not_like,enum=in,enum=not_in,enum=is_null,enum=is_not_null"`
	Input string          `json:"input,omitempty" jsonschema:"description=the input compared with"`
	Value json.RawMessage `json:"value,omitempty" jsonschema:"description=a literal compared with"`
}

type tableOrderConf struct {
	Field string `json:"field" jsonschema:"required"`
	Desc  bool   `json:"desc,omitempty"`
}

var tableOps = []string{"eq", "ne", "gt", "gte", "lt", "lte", "like", "not_like", "in", "not_in", "is_null", "is_not_null"}

var (
	rowsOutputs     = []Param{{Name: "rows", Schema: ArrayOf(S(TypeObject))}, P("row_count", TypeInteger)}
	affectedOutputs = []Param{P("rows_affected", TypeInteger)}
)

func (k tableKind) describe() NodeTypeInfo {
	info := NodeTypeInfo{Type: "table_" + string(k.op), Category: categoryTable, ConfigSchema: configSchema(&tableConfig{})}
	switch k.op {
	case TableSelect:
		info.Title, info.Outputs = "Table query", rowsOutputs
		info.Description = "Reads rows of a table: fields, where (conditions on inputs or literals), order_by, limit."
	case TableInsert:
		info.Title, info.Outputs = "Table insert", affectedOutputs
		info.Description = "Inserts one row: every input is a column and its value."
	case TableUpdate:
		info.Title, info.Outputs = "Table update", affectedOutputs
		info.Description = "Updates the rows matching where: values maps columns to the inputs holding the new values."
	case TableDelete:
		info.Title, info.Outputs = "Table delete", affectedOutputs
		info.Description = "Deletes the rows matching where (required)."
	case TableSQL:
		info.Title, info.Outputs = "Table SQL", append(slices.Clone(rowsOutputs), affectedOutputs...)
		info.Description = "Runs one SQL statement on the table, checked like the bot's SQL tool; {{input}} placeholders " +
			"are bound as parameters, never spliced into the text."
	}
	info.Description += " Per-user tables act on the run's end user's rows."
	return info
}

func (k tableKind) check(c *checker, n *Node) *nodeSpec {
	var cfg tableConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	if cfg.TableID <= 0 {
		c.fail(nodeField(n, "config.table_id"), "is required")
	}
	plan := &tablePlan{op: k.op, cfg: cfg}
	switch k.op {
	case TableSelect:
		plan.outputs = rowsOutputs
	case TableSQL:
		plan.outputs = append(slices.Clone(rowsOutputs), affectedOutputs...)
		c.checkSQL(n, cfg.SQL, plan)
	default:
		plan.outputs = affectedOutputs
	}
	c.checkTableConfig(n, k.op, cfg)
	return &nodeSpec{outputs: plan.outputs, blocking: true, runner: plan}
}

func (c *checker) checkTableConfig(n *Node, op TableOp, cfg tableConfig) {
	only := func(field string, set bool, ops ...TableOp) {
		if set && !slices.Contains(ops, op) {
			c.fail(nodeField(n, "config."+field), "is not used by a table_%s node", op)
		}
	}
	only("fields", len(cfg.Fields) > 0, TableSelect)
	only("order_by", len(cfg.OrderBy) > 0, TableSelect)
	only("limit", cfg.Limit != 0, TableSelect)
	only("where", cfg.Where != nil, TableSelect, TableUpdate, TableDelete)
	only("values", len(cfg.Values) > 0, TableUpdate)
	only("sql", cfg.SQL != "", TableSQL)
	if op == TableDelete && cfg.Where == nil {
		c.fail(nodeField(n, "config.where"), "is required: a delete names the rows it removes")
	}
	if op == TableUpdate && len(cfg.Values) == 0 {
		c.fail(nodeField(n, "config.values"), "is required: the columns an update sets")
	}
	if op == TableInsert && len(n.Inputs) == 0 {
		c.fail(nodeField(n, "inputs"), "an insert needs inputs: one per column")
	}
	for col, in := range cfg.Values {
		if _, ok := n.Inputs[in]; !ok {
			c.fail(nodeField(n, "config.values."+col), "names no input of the node: %q", in)
		}
	}
	if cfg.Where == nil {
		return
	}
	if l := cfg.Where.Logic; l != "" && l != "and" && l != "or" {
		c.fail(nodeField(n, "config.where.logic"), "must be and or or; got %q", l)
	}
	for i, cond := range cfg.Where.Conditions {
		at := nodeField(n, "config.where.conditions["+strconv.Itoa(i)+"]")
		unary := cond.Op == "is_null" || cond.Op == "is_not_null"
		switch {
		case !slices.Contains(tableOps, cond.Op):
			c.fail(at+".op", "must be one of %s; got %q", strings.Join(tableOps, ", "), cond.Op)
		case cond.Field == "":
			c.fail(at+".field", "is required")
		case unary && (cond.Input != "" || len(cond.Value) > 0):
			c.fail(at, "%s takes no value", cond.Op)
		case !unary && (cond.Input == "") == (len(cond.Value) == 0):
			c.fail(at, "set input (an input's name) or value (a literal), one of them")
		case cond.Input != "":
			if _, ok := n.Inputs[cond.Input]; !ok {
				c.fail(at+".input", "names no input of the node: %q", cond.Input)
			}
		}
	}
}

// checkSQL turns the {{input}} placeholders of a custom statement into
// bound parameters.
func (c *checker) checkSQL(n *Node, sql string, plan *tablePlan) {
	if strings.TrimSpace(sql) == "" {
		c.fail(nodeField(n, "config.sql"), "is required")
		return
	}
	t, err := checkTemplate(sql, n.Inputs)
	if err != nil {
		c.fail(nodeField(n, "config.sql"), "%v", err)
		return
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.path == nil {
			b.WriteString(p.text)
			continue
		}
		b.WriteString("?")
		plan.args = append(plan.args, p.path)
	}
	plan.sql = b.String()
}

// tablePlan runs a table node.
type tablePlan struct {
	op      TableOp
	cfg     tableConfig
	sql     string
	args    [][]string
	outputs []Param
}

func (p *tablePlan) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	tq := x.rc.eng.ports.Tables
	if tq == nil {
		return nil, permanent(errors.New("tables are not available in this process"))
	}
	q := p.query(x.rc.in.Scope, in)
	res, err := tq.QueryTable(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("table %d: %w", p.cfg.TableID, err)
	}
	out := map[string]any{"rows_affected": res.RowsAffected}
	rows := make([]any, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = normalize(maps.Clone(r))
	}
	out["rows"], out["row_count"] = rows, int64(len(rows))
	return out, nil
}

// query builds the operation; values come from the inputs, bound.
func (p *tablePlan) query(s Scope, in map[string]any) TableQuery {
	q := TableQuery{Op: p.op, TableID: int64(p.cfg.TableID), Scope: s, Fields: p.cfg.Fields, Limit: p.cfg.Limit, SQL: p.sql}
	for _, o := range p.cfg.OrderBy {
		q.OrderBy = append(q.OrderBy, TableOrder{Field: o.Field, Desc: o.Desc})
	}
	switch p.op {
	case TableInsert:
		q.Values = maps.Clone(in)
	case TableUpdate:
		q.Values = make(map[string]any, len(p.cfg.Values))
		for col, name := range p.cfg.Values {
			q.Values[col] = in[name]
		}
	}
	for _, path := range p.args {
		v, _ := valueAt(in[path[0]], path[1:])
		q.Args = append(q.Args, v)
	}
	if w := p.cfg.Where; w != nil {
		q.Where = &TableWhere{Logic: w.Logic}
		if q.Where.Logic == "" {
			q.Where.Logic = "and"
		}
		for _, c := range w.Conditions {
			v := in[c.Input]
			if len(c.Value) > 0 {
				v, _ = decodeValue(c.Value)
			}
			q.Where.Conditions = append(q.Where.Conditions, TableCondition{Field: c.Field, Op: c.Op, Value: v})
		}
	}
	return q
}
