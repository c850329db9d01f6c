package middleware

import (
	"context"
	"net/http"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// RouteScopes maps "METHOD /path" (hertz's pattern, as c.FullPath gives
// it) to the token scopes that may call the route: any one of them will
// do (the all scope grants every one); an empty list lets every token
// through.
type RouteScopes map[string][]string

// Scopes enforces the route table after Auth: a token without one of the
// route's scopes gets 403 with code 4101 naming them. A route missing
// from the table answers 500: it was added without saying which scope it
// needs, and is closed until it does.
func Scopes(table RouteScopes) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		key := string(c.Method()) + " " + c.FullPath()
		scopes, ok := table[key]
		if !ok {
			httpx.FailWith(c, http.StatusInternalServerError, httpx.CodeInternal,
				"route "+key+" declares no token scope; it stays closed until it does (backend/api/scopes.go)")
			c.Abort()
			return
		}
		if !httpx.Caller(c).HasAnyScope(scopes...) {
			httpx.FailWith(c, http.StatusForbidden, httpx.CodeForbidden,
				"this token lacks the scope "+string(c.Method())+" "+string(c.Path())+" needs: one of "+strings.Join(scopes, ", ")+
					"; create a token with it (POST /api/tokens) or use one with the all scope")
			c.Abort()
			return
		}
		c.Next(ctx)
	}
}
