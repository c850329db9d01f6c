package channel

import "sort"

// sortedKeys returns the keys of m in order, so the first error reported
// for a body with several bad settings is always the same one.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
