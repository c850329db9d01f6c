package workflow

// ReasoningOutput is the output an llm node fills with the model's
// reasoning (reasoning_content of reasoning models), when declared.
const ReasoningOutput = "reasoning_content"

// withoutReasoning returns outs without a declared string output named
// ReasoningOutput, and whether there was one.
func withoutReasoning(outs []Param) ([]Param, bool) {
	kept := make([]Param, 0, len(outs))
	found := false
	for _, p := range outs {
		if p.Name == ReasoningOutput && isStringLike(p.Type) {
			found = true
			continue
		}
		kept = append(kept, p)
	}
	return kept, found
}
