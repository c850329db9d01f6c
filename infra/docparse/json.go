package docparse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// parseJSON reads an array of objects as a table whose columns are all
// the objects' keys in the order first seen (a string value as is, null
// as empty, anything else as compact JSON), and any other JSON as one
// text section, indented. Errors: JSON that is not valid, or an array of
// more than MaxRows objects.
func (p Parser) parseJSON(ctx context.Context, data []byte) (*knowledge.Parsed, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, errs.Invalid("file", "the JSON file is not valid JSON (%v); check it with a JSON validator", err)
	}
	var items []json.RawMessage
	if json.Unmarshal(data, &items) == nil && len(items) > 0 && allObjects(items) {
		return p.jsonTable(ctx, items)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, data, "", "  "); err != nil {
		return nil, errs.Invalid("file", "the JSON file cannot be read: %v", err)
	}
	return textParsed([]knowledge.Section{{Text: pretty.String()}}, "JSON file")
}

func allObjects(items []json.RawMessage) bool {
	for _, it := range items {
		if t := bytes.TrimSpace(it); len(t) == 0 || t[0] != '{' {
			return false
		}
	}
	return true
}

// jsonTable makes the table of an array of objects.
func (p Parser) jsonTable(ctx context.Context, items []json.RawMessage) (*knowledge.Parsed, error) {
	if max := p.limits().MaxRows; len(items) > max {
		return nil, errs.Invalid("file", "the JSON array has %d objects, more than %d; split it into smaller files", len(items), max)
	}
	t := &knowledge.TableData{}
	index := map[string]int{}
	for i, it := range items {
		if i%1000 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("docparse: json object %d: %w", i+1, ctx.Err())
		}
		keys, values, err := orderedObject(it)
		if err != nil {
			return nil, errs.Invalid("file", "object %d of the JSON array cannot be read: %v", i+1, err)
		}
		t.Rows = append(t.Rows, jsonRow(t, index, keys, values))
	}
	for i, row := range t.Rows { // rows read before a later key appeared
		for len(row) < len(t.Columns) {
			row = append(row, "")
		}
		t.Rows[i] = row
	}
	return &knowledge.Parsed{Table: t}, nil
}

// jsonRow places an object's values in the table's columns, adding the
// columns of keys not seen before.
func jsonRow(t *knowledge.TableData, index map[string]int, keys, values []string) []string {
	for _, k := range keys {
		if _, ok := index[k]; !ok {
			index[k] = len(t.Columns)
			t.Columns = append(t.Columns, k)
		}
	}
	row := make([]string, len(t.Columns))
	for i, k := range keys {
		row[index[k]] = values[i]
	}
	return row
}

// orderedObject reads an object's keys in their order with each value as
// a cell.
func orderedObject(raw json.RawMessage) (keys, values []string, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // the opening brace
		return nil, nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, fmt.Sprint(tok))
		values = append(values, cell(v))
	}
	return keys, values, nil
}

// cell is a JSON value as a table cell.
func cell(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	if string(v) == "null" {
		return ""
	}
	var compact bytes.Buffer
	if json.Compact(&compact, v) != nil {
		return string(v)
	}
	return compact.String()
}
