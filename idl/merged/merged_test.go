package merged_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/idl"
	"github.com/pergola-ai/pergola/idl/merged"
)

// TestGeneratedDocumentIsCurrent fails when idl/*.yaml changed and
// idl/merged/openapi.yaml was not regenerated, so the server would serve an
// old contract.
func TestGeneratedDocumentIsCurrent(t *testing.T) {
	want, err := idl.Merged()
	if err != nil {
		t.Fatalf("idl.Merged: %v", err)
	}
	header, body, ok := bytes.Cut(merged.Document(), []byte("\n"))
	if !ok || !strings.HasPrefix(string(header), "# Code generated ") || !strings.HasSuffix(string(header), "DO NOT EDIT.") {
		t.Fatalf("idl/merged/openapi.yaml does not start with a \"# Code generated ... DO NOT EDIT.\" line: %.120q", header)
	}
	if !bytes.Equal(body, want) {
		t.Fatalf("idl/merged/openapi.yaml is stale: idl/*.yaml changed since it was generated (%s); run `go generate ./idl/merged` and commit the result",
			firstDifference(body, want))
	}
}

// firstDifference names the first line and column where the generated
// file and the current merge differ, with a little of both around it, so
// the failure points at what changed.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			c := 0
			for c < len(g[i]) && c < len(w[i]) && g[i][c] == w[i][c] {
				c++
			}
			return fmt.Sprintf("first difference at line %d, column %d: generated %q, current %q",
				i+2, c+1, around(g[i], c), around(w[i], c))
		}
	}
	return fmt.Sprintf("generated has %d lines, current %d", len(g)+1, len(w)+1)
}

// around returns up to 30 bytes of s either side of column c.
func around(s string, c int) string {
	return s[max(0, c-30):min(len(s), c+30)]
}
