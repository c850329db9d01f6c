// Package httpx holds what every HTTP surface shares: the response envelope,
// the one table that maps domain errors to HTTP statuses and Coze codes,
// request binding with field-naming errors, and the caller in the context.
package httpx

import (
	"errors"
	"net/http"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Coze-compatible error codes carried in the envelope's "code".
const (
	CodeOK               = 0
	CodeInvalid          = 4000
	CodeBodyTooLarge     = 4001
	CodeMethodNotAllowed = 4050 // a route that exists, called with another method
	CodeUnauthenticated  = 4100
	CodeForbidden        = 4101
	CodeNotFound         = 4200
	CodeConflict         = 4300
	CodeRateLimited      = 4013
	CodeInternal         = 5000
	CodeUnavailable      = 5030
)

// errorTable is the single mapping from the error vocabulary to HTTP.
var errorTable = []struct {
	err    error
	status int
	code   int
}{
	{errs.ErrInvalid, http.StatusBadRequest, CodeInvalid},
	{errs.ErrUnauthenticated, http.StatusUnauthorized, CodeUnauthenticated},
	{errs.ErrForbidden, http.StatusForbidden, CodeForbidden},
	{errs.ErrNotFound, http.StatusNotFound, CodeNotFound},
	{errs.ErrConflict, http.StatusConflict, CodeConflict},
	{errs.ErrRateLimited, http.StatusTooManyRequests, CodeRateLimited},
	{errs.ErrUnavailable, http.StatusServiceUnavailable, CodeUnavailable},
}

// Classify returns the HTTP status, the Coze code and the message a user
// should see for err. Errors outside the vocabulary are internal: their text
// is not shown.
func Classify(err error) (status, code int, msg string) {
	for _, row := range errorTable {
		if errors.Is(err, row.err) {
			return row.status, row.code, err.Error()
		}
	}
	if storageDown(err) { // see unavailable.go
		return http.StatusServiceUnavailable, CodeUnavailable, MsgDatabaseDown
	}
	return http.StatusInternalServerError, CodeInternal, "internal server error"
}
