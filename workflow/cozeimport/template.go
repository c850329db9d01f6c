package cozeimport

import (
	"regexp"
	"strings"

	"github.com/pergola-ai/pergola/workflow"
)

var (
	placeholderRE = regexp.MustCompile(`\{\{\s*([^{}]+?)\s*\}\}`)
	globalVarRE   = regexp.MustCompile(`^global_variable_(user|app|system)\s*\[\s*["']([^"']+)["']\s*\]$`)
	unsafeNameRE  = regexp.MustCompile(`[^A-Za-z0-9_]`)
)

// template rewrites a Coze template for the DSL: {{a[0].b}} becomes
// {{a.0.b}}; {{block_output_<id>.<path>}} and
// {{global_variable_user["k"]}}, which Coze resolves by themselves, become
// inputs of the node named in the template.
func (nc *nodeConv) template(s string) (string, error) {
	var failed error
	out := placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		expr := strings.TrimSpace(placeholderRE.FindStringSubmatch(m)[1])
		name, err := nc.placeholder(expr)
		if err != nil && failed == nil {
			failed = err
		}
		return "{{" + name + "}}"
	})
	return out, failed
}

func (nc *nodeConv) placeholder(expr string) (string, error) {
	if rest, ok := strings.CutPrefix(expr, "block_output_"); ok {
		id, path, _ := strings.Cut(rest, ".")
		name := inputName("ref", id+"_"+dotted(path))
		in, err := nc.ref(blockRef{BlockID: id, Name: path, Source: "block-output"}, "{{"+expr+"}}")
		if err != nil {
			return expr, err
		}
		nc.setInput(name, in)
		return name, nil
	}
	if m := globalVarRE.FindStringSubmatch(expr); m != nil {
		name := inputName("var", m[2])
		in, err := nc.ref(blockRef{Source: "global_variable_" + m[1], Path: []string{m[2]}}, "{{"+expr+"}}")
		if err != nil {
			return expr, err
		}
		nc.setInput(name, in)
		return name, nil
	}
	path := dotted(expr)
	root, _, _ := strings.Cut(path, ".")
	if _, ok := nc.node.Inputs[root]; !ok {
		// Coze prints a placeholder naming no input as it is written.
		name := inputName("text", expr)
		nc.setInput(name, workflow.Literal("{{"+expr+"}}"))
		return name, nil
	}
	return path, nil
}

// inputName makes a valid input name from a prefix and free text.
func inputName(prefix, text string) string {
	name := prefix + "_" + unsafeNameRE.ReplaceAllString(text, "_")
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}
