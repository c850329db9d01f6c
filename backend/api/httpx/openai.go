package httpx

import (
	"errors"
	"net/http"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/domain/errs"
)

// OpenAI error codes Pergola sends in {"error":{"code"}}, as OpenAI's API
// names them.
const (
	OpenAIModelNotFound  = "model_not_found"
	OpenAIInvalidAPIKey  = "invalid_api_key"
	OpenAIRateLimited    = "rate_limit_exceeded"
	OpenAIBodyTooLarge   = "request_too_large"
	OpenAIUnsupported    = "unsupported_value"
	OpenAIResponseFailed = "response_failed"
)

// openAIPrefixes are the routes OpenAI's clients call: every answer there,
// errors of the middleware included, is in OpenAI's error shape, because
// those clients read nothing else.
var openAIPrefixes = []string{"/v1/chat/completions", "/v1/models", "/v1/responses", "/v1/embeddings"}

// IsOpenAIPath reports whether path is one of the OpenAI-compatible routes.
func IsOpenAIPath(path string) bool {
	for _, p := range openAIPrefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// OpenAIError is OpenAI's error object, the value of {"error": ...}.
type OpenAIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// openAIDetail tags an error with the OpenAI code and param it answers
// with; it is still the wrapped error for errors.Is and Classify.
type openAIDetail struct {
	err   error
	code  string
	param string
}

func (e *openAIDetail) Error() string { return e.err.Error() }
func (e *openAIDetail) Unwrap() error { return e.err }

// WithOpenAICode tags err with OpenAI's code and param (either may be
// empty), e.g. model_not_found on "model" for a bot that cannot be used.
func WithOpenAICode(err error, code, param string) error {
	if err == nil {
		return nil
	}
	return &openAIDetail{err: err, code: code, param: param}
}

// OpenAITagged reports whether WithOpenAICode tagged err already.
func OpenAITagged(err error) bool {
	var d *openAIDetail
	return errors.As(err, &d)
}

// NewOpenAIError renders err as OpenAI's error object with the status it
// answers with: the type follows the status, the param is the field an
// errs.FieldError names, the code is the one tagged by WithOpenAICode or
// the status's usual one.
func NewOpenAIError(err error) (int, OpenAIError) {
	status, _, msg := Classify(err)
	e := OpenAIError{Message: msg, Type: OpenAIErrorType(status)}
	var fe *errs.FieldError
	if errors.As(err, &fe) {
		e.Param = &fe.Field
	}
	var d *openAIDetail
	if errors.As(err, &d) {
		if d.param != "" {
			e.Param = &d.param
		}
		if d.code != "" {
			e.Code = &d.code
		}
	}
	if e.Code == nil {
		e.Code = statusCode(status)
	}
	return status, e
}

// OpenAIErrorType is the error type OpenAI's API uses for an HTTP status.
// A 404 is an invalid_request_error, as OpenAI answers an unknown model,
// and so is a 401: OpenAI answers a bad key with invalid_request_error and
// the code invalid_api_key.
func OpenAIErrorType(status int) string {
	switch {
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// statusCode is the code of an error nothing tagged.
func statusCode(status int) *string {
	code := ""
	switch status {
	case http.StatusUnauthorized:
		code = OpenAIInvalidAPIKey
	case http.StatusTooManyRequests:
		code = OpenAIRateLimited
	case http.StatusRequestEntityTooLarge:
		code = OpenAIBodyTooLarge
	default:
		return nil
	}
	return &code
}

// FailOpenAI writes err in OpenAI's error shape with its HTTP status and
// stops the handler chain.
func FailOpenAI(c *app.RequestContext, err error) {
	status, e := NewOpenAIError(err)
	c.Set(errorKey, err)
	setRetryAfter(c, status)
	c.Header("X-Request-Id", LogID(c))
	c.AbortWithStatusJSON(status, map[string]any{"error": e})
}

// FailOpenAIWith writes an error raised by the HTTP layer itself (no
// route, a body too large) in OpenAI's shape with status and msg.
func FailOpenAIWith(c *app.RequestContext, status int, msg string) {
	e := OpenAIError{Message: msg, Type: OpenAIErrorType(status), Code: statusCode(status)}
	c.Header("X-Request-Id", LogID(c))
	c.AbortWithStatusJSON(status, map[string]any{"error": e})
}
