package tool

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestArgs(t *testing.T) {
	args := map[string]any{
		"s": "text", "n": json.Number("2.5"), "i": json.Number("7"), "f": 3.0, "ns": " 4 ",
		"b": true, "bs": "false", "obj": map[string]any{}, "empty": "",
	}
	if v, err := String(args, "s"); err != nil || v != "text" {
		t.Errorf("String = %q, %v", v, err)
	}
	if v, err := OptString(args, "empty", "def"); err != nil || v != "def" {
		t.Errorf("OptString(empty) = %q, %v", v, err)
	}
	if v, err := Number(args, "n"); err != nil || v != 2.5 {
		t.Errorf("Number(json.Number) = %v, %v", v, err)
	}
	if v, err := Number(args, "ns"); err != nil || v != 4 {
		t.Errorf("Number(text) = %v, %v", v, err)
	}
	if v, err := OptInt(args, "i", 0, 0, 10); err != nil || v != 7 {
		t.Errorf("OptInt = %v, %v", v, err)
	}
	if v, err := OptInt(args, "absent", 5, 0, 10); err != nil || v != 5 {
		t.Errorf("OptInt(absent) = %v, %v", v, err)
	}
	if v, err := OptBool(args, "bs", true); err != nil || v {
		t.Errorf("OptBool(text) = %v, %v", v, err)
	}
	if v, err := OptEnum(args, "s", "", "TEXT", "other"); err != nil || v != "TEXT" {
		t.Errorf("OptEnum = %v, %v", v, err)
	}
	bad := []struct {
		name  string
		call  func() error
		field string
	}{
		{"missing string", func() error { _, err := String(args, "nope"); return err }, "nope"},
		{"object as string", func() error { _, err := String(args, "obj"); return err }, "obj"},
		{"text as number", func() error { _, err := Number(args, "s"); return err }, "s"},
		{"fraction as int", func() error { _, err := OptInt(args, "n", 0, 0, 10); return err }, "n"},
		{"int out of range", func() error { _, err := OptInt(args, "i", 0, 0, 5); return err }, "i"},
		{"number as bool", func() error { _, err := OptBool(args, "f", false); return err }, "f"},
		{"enum miss", func() error { _, err := OptEnum(args, "s", "", "a", "b"); return err }, "s"},
	}
	for _, tc := range bad {
		var fe *errs.FieldError
		if err := tc.call(); !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: %v, want an invalid %q", tc.name, err, tc.field)
		}
	}
}

func TestOpsInvoke(t *testing.T) {
	ops := Ops{"b": func(context.Context, map[string]any) (string, error) { return "B", nil }, "a": nil}
	if got := ops.Names(); len(got) != 2 || got[0] != "a" {
		t.Fatalf("Names = %v, want sorted", got)
	}
	if got, err := ops.Invoke(context.Background(), "b", nil); err != nil || got != "B" {
		t.Fatalf("Invoke(b) = %q, %v", got, err)
	}
	_, err := ops.Invoke(context.Background(), "zz", nil)
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "operation" || fe.Reason != `unknown operation "zz"; want one of a, b` {
		t.Fatalf("Invoke(zz) = %v", err)
	}
}
