package workflow

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	wf "github.com/pergola-ai/pergola/workflow"
)

// TableStatement writes the statement a table node's operation runs on
// table: the SQL the tables feature's guard checks, as it checks the bot's
// SQL tool. Values are written as literals, which the guard parses and
// binds as parameters again; the bound arguments of a custom statement
// take the place of its "?" placeholders the same way.
func TableStatement(q wf.TableQuery, table string) (string, error) {
	var b strings.Builder
	switch q.Op {
	case wf.TableSelect:
		fields := "*"
		if len(q.Fields) > 0 {
			fields = identList(q.Fields)
		}
		b.WriteString("SELECT " + fields + " FROM " + ident(table))
		writeWhere(&b, q.Where)
		writeOrder(&b, q.OrderBy)
		if q.Limit > 0 {
			b.WriteString(" LIMIT " + strconv.Itoa(q.Limit))
		}
	case wf.TableInsert:
		cols := slices.Sorted(maps.Keys(q.Values))
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = sqlLiteral(q.Values[c])
		}
		b.WriteString("INSERT INTO " + ident(table) + " (" + identList(cols) + ") VALUES (" + strings.Join(vals, ", ") + ")")
	case wf.TableUpdate:
		cols := slices.Sorted(maps.Keys(q.Values))
		sets := make([]string, len(cols))
		for i, c := range cols {
			sets[i] = ident(c) + " = " + sqlLiteral(q.Values[c])
		}
		b.WriteString("UPDATE " + ident(table) + " SET " + strings.Join(sets, ", "))
		writeWhere(&b, q.Where)
	case wf.TableDelete:
		b.WriteString("DELETE FROM " + ident(table))
		writeWhere(&b, q.Where)
	case wf.TableSQL:
		return bindArgs(q.SQL, q.Args)
	default:
		return "", errs.Invalid("op", "unknown table operation %q", q.Op)
	}
	return b.String(), nil
}

var tableOps = map[string]string{"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=",
	"like": "LIKE", "not_like": "NOT LIKE", "in": "IN", "not_in": "NOT IN"}

func writeWhere(b *strings.Builder, w *wf.TableWhere) {
	if w == nil || len(w.Conditions) == 0 {
		return
	}
	join := " AND "
	if w.Logic == "or" {
		join = " OR "
	}
	parts := make([]string, len(w.Conditions))
	for i, c := range w.Conditions {
		switch c.Op {
		case "is_null":
			parts[i] = ident(c.Field) + " IS NULL"
		case "is_not_null":
			parts[i] = ident(c.Field) + " IS NOT NULL"
		case "in", "not_in":
			parts[i] = ident(c.Field) + " " + tableOps[c.Op] + " " + sqlList(c.Value)
		default:
			parts[i] = ident(c.Field) + " " + tableOps[c.Op] + " " + sqlLiteral(c.Value)
		}
	}
	b.WriteString(" WHERE " + strings.Join(parts, join))
}

func writeOrder(b *strings.Builder, order []wf.TableOrder) {
	if len(order) == 0 {
		return
	}
	parts := make([]string, len(order))
	for i, o := range order {
		parts[i] = ident(o.Field)
		if o.Desc {
			parts[i] += " DESC"
		}
	}
	b.WriteString(" ORDER BY " + strings.Join(parts, ", "))
}

// ident quotes a name with backticks.
func ident(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func identList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ident(n)
	}
	return strings.Join(out, ", ")
}

// sqlLiteral writes a value as a MySQL literal; objects and arrays become
// JSON text.
func sqlLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return strings.ToUpper(strconv.FormatBool(x))
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return quote(x)
	}
	b, _ := json.Marshal(v)
	return quote(string(b))
}

func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`, "\x00", `\0`).Replace(s) + "'"
}

func sqlList(v any) string {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = sqlLiteral(e)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// bindArgs puts each argument, as a literal, in place of the "?"
// placeholders outside quotes, in order.
func bindArgs(sql string, args []any) (string, error) {
	var b strings.Builder
	var quoteCh byte
	n := 0
	for i := 0; i < len(sql); i++ {
		ch := sql[i]
		switch {
		case quoteCh != 0:
			if ch == '\\' && i+1 < len(sql) {
				b.WriteByte(ch)
				i++
				ch = sql[i]
			} else if ch == quoteCh {
				quoteCh = 0
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quoteCh = ch
		case ch == '?':
			if n >= len(args) {
				return "", fmt.Errorf("the statement has more placeholders than values")
			}
			b.WriteString(sqlLiteral(args[n]))
			n++
			continue
		}
		b.WriteByte(ch)
	}
	if n != len(args) {
		return "", fmt.Errorf("the statement has %d placeholders for %d values", n, len(args))
	}
	return b.String(), nil
}
