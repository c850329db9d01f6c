// Package middleware holds the hertz middleware of every surface: log id,
// panic recovery, access log, metrics, CORS, body size, authentication and
// per-token rate limits.
package middleware

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// LogIDHeader carries the request's log id, as Coze does.
const LogIDHeader = "X-Tt-Logid"

var logIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)

// LogID gives every request a log id, taken from a well-formed incoming
// X-Tt-Logid header or made fresh, and returns it on every response.
func LogID() app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		id := string(c.GetHeader(LogIDHeader))
		if !logIDPattern.MatchString(id) {
			id = newLogID()
		}
		httpx.SetLogID(c, id)
		c.Header(LogIDHeader, id)
		c.Next(ctx)
	}
}

func newLogID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102150405") + hex.EncodeToString(b[:])
}

// Recovery turns a panic in a handler into a logged 500 envelope, so one bad
// request never takes the process down.
func Recovery(log *slog.Logger) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		defer func() {
			if r := recover(); r != nil {
				log.ErrorContext(ctx, "panic in handler", "logid", httpx.LogID(c), "path", string(c.Path()),
					"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				httpx.FailWith(c, http.StatusInternalServerError, httpx.CodeInternal, "internal server error")
			}
		}()
		c.Next(ctx)
	}
}

// AccessLog writes one structured line per request.
func AccessLog(log *slog.Logger) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		start := time.Now()
		size := countWrites(c)
		c.Next(ctx)
		n := size()
		status := c.Response.StatusCode()
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		attrs := []any{
			"logid", httpx.LogID(c), "method", string(c.Method()), "path", string(c.Path()),
			"route", Route(c), "status", status, "duration_ms", float64(time.Since(start).Microseconds()) / 1000,
			"bytes", n, "client_ip", c.ClientIP(),
		}
		if p := httpx.Caller(c); p.UserID != 0 {
			attrs = append(attrs, "user_id", strconv.FormatInt(p.UserID, 10))
		}
		log.Log(ctx, level, "http request", attrs...)
	}
}

// Route returns the matched route template, or "unmatched".
func Route(c *app.RequestContext) string {
	if p := c.FullPath(); p != "" {
		return p
	}
	return "unmatched"
}

// BodyLimit answers 413 with an envelope (code 4001) when the body, declared
// or chunked, exceeds max bytes. Bodies past the server's own hard limit
// never reach it; the listener answers those with the same envelope.
func BodyLimit(max int) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		n := c.Request.Header.ContentLength()
		if got := len(c.Request.Body()); got > n {
			n = got // chunked: no declared length
		}
		if n > max {
			httpx.FailWith(c, http.StatusRequestEntityTooLarge, httpx.CodeBodyTooLarge,
				fmt.Sprintf("request body is %d bytes; the limit is %d bytes (PERGOLA_MAX_BODY_BYTES)", n, max))
			return
		}
		c.Next(ctx)
	}
}

// JSONText refuses, with 400 and code 4000, a JSON body (Content-Type
// application/json, or none) that is not valid UTF-8 or escapes a lone
// surrogate, before any handler could store it mangled.
func JSONText() app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		body := c.Request.Body()
		ct := string(c.GetHeader("Content-Type"))
		if len(body) > 0 && (ct == "" || isJSON(ct)) {
			if err := httpx.CheckJSONText(body); err != nil {
				httpx.Fail(ctx, c, err)
				c.Abort()
				return
			}
		}
		c.Next(ctx)
	}
}

// CORS allows browsers on the given origins to call the API and answers
// preflight requests. With "*" any origin may call with a bearer token, but
// only explicitly listed origins get credentials (the session cookie).
func CORS(origins []string) app.HandlerFunc {
	any := len(origins) == 1 && origins[0] == "*"
	allowed := map[string]bool{}
	for _, o := range origins {
		allowed[o] = true
	}
	return func(ctx context.Context, c *app.RequestContext) {
		origin := string(c.GetHeader("Origin"))
		c.Header("Vary", "Origin")
		switch {
		case origin == "":
		case allowed[origin]:
			// Only origins named explicitly may send the session cookie.
			c.Header("Access-Control-Allow-Origin", origin)
			c.Header("Access-Control-Allow-Credentials", "true")
			c.Header("Access-Control-Expose-Headers", LogIDHeader+", Retry-After")
		case any:
			c.Header("Access-Control-Allow-Origin", "*")
			c.Header("Access-Control-Expose-Headers", LogIDHeader+", Retry-After")
		}
		if string(c.Method()) == http.MethodOptions && origin != "" {
			c.Header("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
			reqHeaders := string(c.GetHeader("Access-Control-Request-Headers"))
			if reqHeaders == "" {
				reqHeaders = "Authorization, Content-Type"
			}
			c.Header("Access-Control-Allow-Headers", reqHeaders)
			c.Header("Access-Control-Max-Age", strconv.Itoa(600))
			c.AbortWithStatus(http.StatusNoContent)
			return
		}
		c.Next(ctx)
	}
}

// bearer extracts the token of an "Authorization: Bearer x" header.
func bearer(c *app.RequestContext) string {
	h := strings.TrimSpace(string(c.GetHeader("Authorization")))
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}
