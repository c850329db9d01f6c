package workflow

import (
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// MaxToolName is the longest tool name model APIs accept.
const MaxToolName = 64

// ToolName turns a workflow's name into a tool name: letters, digits, _
// and - only, starting with a letter, at most 64 characters; "workflow_<id>"
// when nothing is left.
func ToolName(name string, id int64) string {
	var b strings.Builder
	underscore := false
	for _, r := range name {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		if !ok {
			if !underscore && b.Len() > 0 {
				b.WriteByte('_')
				underscore = true
			}
			continue
		}
		b.WriteRune(r)
		underscore = r == '_'
	}
	s := strings.Trim(b.String(), "_-")
	if s == "" {
		return "workflow_" + strconv.FormatInt(id, 10)
	}
	if c := s[0]; c >= '0' && c <= '9' {
		s = "wf_" + s
	}
	if len(s) > MaxToolName {
		s = strings.TrimRight(s[:MaxToolName], "_-")
	}
	return s
}

// ToolParams describes a workflow's parameters as tool parameters.
func ToolParams(params []Param) map[string]*schema.ParameterInfo {
	out := make(map[string]*schema.ParameterInfo, len(params))
	for _, p := range params {
		pi := toolSchema(p.Schema)
		pi.Desc, pi.Required = p.Description, p.Required
		out[p.Name] = pi
	}
	return out
}

func toolSchema(s Schema) *schema.ParameterInfo {
	pi := &schema.ParameterInfo{}
	switch s.Type {
	case TypeInteger:
		pi.Type = schema.Integer
	case TypeNumber:
		pi.Type = schema.Number
	case TypeBoolean:
		pi.Type = schema.Boolean
	case TypeObject:
		pi.Type = schema.Object
		if len(s.Properties) > 0 {
			pi.SubParams = ToolParams(s.Properties)
		}
	case TypeArray:
		pi.Type = schema.Array
		pi.ElemInfo = &schema.ParameterInfo{Type: schema.String}
		if s.Items != nil {
			pi.ElemInfo = toolSchema(*s.Items)
		}
	case TypeFile:
		pi.Type, pi.Desc = schema.String, "the URL of a file"
	default:
		pi.Type = schema.String
	}
	return pi
}

// UniqueToolName returns name, or name with a numeric suffix when taken,
// and marks it taken.
func UniqueToolName(taken map[string]bool, name string) string {
	out := name
	for i := 2; taken[out]; i++ {
		suffix := "_" + strconv.Itoa(i)
		out = name[:min(len(name), MaxToolName-len(suffix))] + suffix
	}
	taken[out] = true
	return out
}
