package cozeimport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// selectParam is the query of a database query node.
type selectParam struct {
	Condition   *dbCondition `json:"condition"`
	OrderByList []struct {
		FieldID flexString `json:"fieldID"`
		IsAsc   bool       `json:"isAsc"`
	} `json:"orderByList"`
	Limit     int64 `json:"limit"`
	FieldList []struct {
		FieldID flexString `json:"fieldID"`
	} `json:"fieldList"`
}

// fieldParam is the condition and field values of a write.
type fieldParam struct {
	Condition *dbCondition   `json:"condition"`
	FieldInfo [][]*cozeParam `json:"fieldInfo"`
}

// dbCondition is a where clause: each entry holds left (the field name),
// operation and right (the value).
type dbCondition struct {
	ConditionList [][]*cozeParam `json:"conditionList"`
	Logic         string         `json:"logic"`
}

// tableOp maps Coze's database operations to the DSL's.
func tableOp(op string) (string, bool) {
	ops := map[string]string{"EQUAL": "eq", "NOT_EQUAL": "ne", "GREATER_THAN": "gt", "LESS_THAN": "lt",
		"GREATER_EQUAL": "gte", "LESS_EQUAL": "lte", "IN": "in", "NOT_IN": "not_in", "IS_NULL": "is_null",
		"IS_NOT_NULL": "is_not_null", "LIKE": "like", "NOT_LIKE": "not_like"}
	s, ok := ops[op]
	return s, ok
}

// tableConfig starts the config with the mapped table.
func (nc *nodeConv) tableConfig() (map[string]any, error) {
	if len(nc.in.DatabaseInfoList) != 1 {
		return nil, errs.Invalid(nc.at+".data.inputs.databaseInfoList", "must name one database")
	}
	coze := string(nc.in.DatabaseInfoList[0].DatabaseInfoID)
	id, ok := nc.c.opts.Tables[coze]
	if !ok {
		nc.flag("database %s is a Coze Studio database: map it to a Pergola table", coze)
		id, _ = strconv.ParseInt(coze, 10, 64)
	}
	return map[string]any{"table_id": id}, nil
}

// where converts a condition; each right side becomes input w_<i>.
func (nc *nodeConv) where(c *dbCondition, field string) (map[string]any, error) {
	if c == nil || len(c.ConditionList) == 0 {
		return nil, nil
	}
	var conds []map[string]any
	for i, entry := range c.ConditionList {
		at := fmt.Sprintf("%s.condition.conditionList[%d]", field, i)
		left, _ := paramText(entry, "left")
		opText, _ := paramText(entry, "operation")
		op, ok := tableOp(opText)
		if left == "" || !ok {
			return nil, errs.Invalid(nc.at+"."+at, "needs a field (left) and a known operation; got %q %q", left, opText)
		}
		cond := map[string]any{"field": left, "op": op}
		if right := findParam(entry, "right"); right != nil && right.Input != nil {
			in, err := nc.input(right.Input, at+".right")
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("w_%d", i)
			nc.setInput(name, in)
			cond["input"] = name
		}
		conds = append(conds, cond)
	}
	return map[string]any{"logic": strings.ToLower(c.Logic), "conditions": conds}, nil
}

// setWhere sets config where when the condition has entries.
func (nc *nodeConv) setWhere(cfg map[string]any, c *dbCondition, field string) error {
	w, err := nc.where(c, field)
	if w != nil {
		cfg["where"] = w
	}
	return err
}

// fields converts fieldInfo pairs (column name, value) to inputs; it
// returns the column → input names.
func (nc *nodeConv) fields(info [][]*cozeParam, field string, prefix string) (map[string]string, error) {
	out := map[string]string{}
	for i, pair := range info {
		at := fmt.Sprintf("%s.fieldInfo[%d]", field, i)
		if len(pair) != 2 || pair[0] == nil || pair[1] == nil {
			return nil, errs.Invalid(nc.at+"."+at, "must hold a field name and a value")
		}
		col, _ := pair[0].Input.literalText()
		if isDigits(col) { // a Coze field id: the column's name is not in the canvas
			nc.flag("field %s is a Coze Studio field id: rename input field_%s to the table's column", col, col)
			col = "field_" + col
		}
		in, err := nc.input(pair[1].Input, at+"[1]")
		if err != nil {
			return nil, err
		}
		name := prefix + col
		nc.setInput(name, in)
		out[col] = name
	}
	return out, nil
}

// convertTableSelect: the condition, the limit; fields and sort order name
// Coze field ids, which are reported.
func convertTableSelect(nc *nodeConv) error {
	cfg, err := nc.tableConfig()
	if err != nil {
		return err
	}
	if p := nc.in.SelectParam; p != nil {
		if err := nc.setWhere(cfg, p.Condition, "data.inputs.selectParam"); err != nil {
			return err
		}
		if p.Limit > 0 {
			cfg["limit"] = p.Limit
		}
		if len(p.FieldList) > 0 || len(p.OrderByList) > 0 {
			nc.flag("fields and sort order name Coze field ids: every column is returned, unsorted; set fields and order_by")
		}
	}
	return nc.config(cfg)
}

// convertTableInsert: every field is an input named after its column.
func convertTableInsert(nc *nodeConv) error {
	cfg, err := nc.tableConfig()
	if err != nil {
		return err
	}
	if nc.in.InsertParam != nil {
		if _, err := nc.fields(nc.in.InsertParam.FieldInfo, "data.inputs.insertParam", ""); err != nil {
			return err
		}
	}
	return nc.config(cfg)
}

// convertTableUpdate: the condition and the new values.
func convertTableUpdate(nc *nodeConv) error {
	cfg, err := nc.tableConfig()
	if err != nil {
		return err
	}
	if p := nc.in.UpdateParam; p != nil {
		if err := nc.setWhere(cfg, p.Condition, "data.inputs.updateParam"); err != nil {
			return err
		}
		if cfg["values"], err = nc.fields(p.FieldInfo, "data.inputs.updateParam", "set_"); err != nil {
			return err
		}
	}
	return nc.config(cfg)
}

// convertTableDelete: the condition.
func convertTableDelete(nc *nodeConv) error {
	cfg, err := nc.tableConfig()
	if err != nil {
		return err
	}
	if p := nc.in.DeleteParam; p != nil {
		if err := nc.setWhere(cfg, p.Condition, "data.inputs.deleteParam"); err != nil {
			return err
		}
	}
	return nc.config(cfg)
}

// convertTableSQL: {{name}} placeholders over the inputs are bound as
// parameters by the DSL too.
func convertTableSQL(nc *nodeConv) error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	cfg, err := nc.tableConfig()
	if err != nil {
		return err
	}
	if cfg["sql"], err = nc.template(nc.in.SQL); err != nil {
		return err
	}
	return nc.config(cfg)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
