package wftool

import (
	"strconv"
	"strings"
)

// maxToolName is the longest tool name model APIs accept.
const maxToolName = 64

// toolName turns a workflow's name into a tool name: letters, digits, _
// and - only, starting with a letter, at most 64 characters; "workflow_<id>"
// when nothing is left.
func toolName(name string, id int64) string {
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
	if len(s) > maxToolName {
		s = strings.TrimRight(s[:maxToolName], "_-")
	}
	return s
}

// uniqueName returns name, or name with a numeric suffix when taken, and
// marks it taken.
func uniqueName(taken map[string]bool, name string) string {
	out := name
	for i := 2; taken[out]; i++ {
		suffix := "_" + strconv.Itoa(i)
		out = name[:min(len(name), maxToolName-len(suffix))] + suffix
	}
	taken[out] = true
	return out
}
