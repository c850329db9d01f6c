// Package plugintest checks built-in plugins in tests: that a manifest is a
// valid OpenAPI 3.0 document whose operations match the implementation,
// and that operations answer a table of cases.
package plugintest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/plugins/internal/tool"
)

// CheckManifest fails t unless manifest parses and validates as OpenAPI,
// every operation has an operationId, a description and an implementation
// in ops, and every op is in the manifest.
func CheckManifest(t *testing.T, manifest []byte, ops tool.Ops) {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(manifest)
	if err != nil {
		t.Fatalf("manifest does not parse: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("manifest is not valid OpenAPI: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0") {
		t.Errorf("manifest is OpenAPI %s, want 3.0", doc.OpenAPI)
	}
	var ids []string
	for path, item := range doc.Paths {
		for method, op := range item.Operations() {
			if op.OperationID == "" || op.Description == "" {
				t.Errorf("%s %s: operationId %q and description %q must both be set", method, path, op.OperationID, op.Description)
			}
			ids = append(ids, op.OperationID)
		}
	}
	slices.Sort(ids)
	if want := ops.Names(); !slices.Equal(ids, want) {
		t.Errorf("manifest operations %v, implemented %v", ids, want)
	}
}

// Case is one call of an operation and what it must answer.
type Case struct {
	Name string
	Op   string
	Args map[string]any
	// Want is the exact answer, when not empty.
	Want string
	// Contains are parts the answer must hold.
	Contains []string
	// ErrField, when not empty, expects an errs.Invalid error naming it.
	ErrField string
	// ErrText, when not empty, expects an error containing it.
	ErrText string
}

// Run calls ops for every case and reports mismatches.
func Run(t *testing.T, ops tool.Ops, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got, err := ops.Invoke(context.Background(), tc.Op, tc.Args)
			if tc.ErrField != "" || tc.ErrText != "" {
				checkErr(t, err, tc)
				return
			}
			if err != nil {
				t.Fatalf("%s(%v): %v", tc.Op, tc.Args, err)
			}
			if tc.Want != "" && got != tc.Want {
				t.Fatalf("%s(%v) = %q, want %q", tc.Op, tc.Args, got, tc.Want)
			}
			for _, part := range tc.Contains {
				if !strings.Contains(got, part) {
					t.Fatalf("%s(%v) = %q, want it to contain %q", tc.Op, tc.Args, got, part)
				}
			}
		})
	}
}

func checkErr(t *testing.T, err error, tc Case) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s(%v) succeeded, want an error", tc.Op, tc.Args)
	}
	if tc.ErrField != "" {
		var fe *errs.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.ErrField {
			t.Fatalf("%s(%v) = %v, want an invalid %q", tc.Op, tc.Args, err, tc.ErrField)
		}
	}
	if tc.ErrText != "" && !strings.Contains(err.Error(), tc.ErrText) {
		t.Fatalf("%s(%v) = %q, want it to say %q", tc.Op, tc.Args, err, tc.ErrText)
	}
}
