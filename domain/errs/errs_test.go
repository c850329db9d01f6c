package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestWrappedErrorsMatchTheirSentinel(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"field", Invalid("name", "must not be empty"), ErrInvalid},
		{"wrapped field", fmt.Errorf("create bot: %w", Invalid("name", "too long")), ErrInvalid},
		{"not found", NotFound("workspace", "7"), ErrNotFound},
		{"conflict", Conflict("email %s taken", "a@b"), ErrConflict},
		{"forbidden", Forbidden("not a member"), ErrForbidden},
		{"unauthenticated", Unauthenticated("token expired"), ErrUnauthenticated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.want) {
				t.Fatalf("%v does not match %v", tc.err, tc.want)
			}
		})
	}
	var fe *FieldError
	if !errors.As(fmt.Errorf("x: %w", Invalid("space_id", "required")), &fe) || fe.Field != "space_id" {
		t.Fatalf("FieldError not recoverable with errors.As: %+v", fe)
	}
	if got := Forbidden("not a member of %d", 3).Error(); got != "not a member of 3" {
		t.Fatalf("message = %q", got)
	}
	if got := NotFound("bot", "9").Error(); got != "bot 9 not found" {
		t.Fatalf("message = %q", got)
	}
}
