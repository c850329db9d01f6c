package middleware

import (
	"context"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// CSRF refuses cookie-authenticated writes (POST, PUT, PATCH, DELETE) that a
// page on another site could have sent. Such a write must come from an
// allowed origin (a listed origin, or the request's own Host; "*" in the
// list allows no extra origin here, since it never grants credentials),
// judged by Origin or, without it, Referer; a request with neither comes
// from a non-browser client and passes. Its body, if any, must be JSON,
// which a cross-site form cannot send. Calls with Authorization: Bearer are
// not affected: a browser never adds that header on its own. Refusals are
// 403 with code 4101 and say why.
func CSRF(origins []string) app.HandlerFunc {
	listed := map[string]bool{}
	for _, o := range origins {
		if o != "*" {
			listed[strings.TrimRight(o, "/")] = true
		}
	}
	return func(ctx context.Context, c *app.RequestContext) {
		if !unsafeMethod(string(c.Method())) || bearer(c) != "" || len(c.Cookie(SessionCookie)) == 0 {
			c.Next(ctx)
			return
		}
		if msg := csrfProblem(c, listed); msg != "" {
			httpx.FailWith(c, http.StatusForbidden, httpx.CodeForbidden, msg)
			return
		}
		c.Next(ctx)
	}
}

func unsafeMethod(m string) bool {
	switch m {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// csrfProblem says why a cookie-authenticated write is refused, or "".
func csrfProblem(c *app.RequestContext, listed map[string]bool) string {
	origin, from := string(c.GetHeader("Origin")), "Origin"
	if origin == "" {
		origin, from = refererOrigin(string(c.GetHeader("Referer"))), "Referer"
	}
	if origin != "" && !listed[origin] && !sameHost(origin, string(c.Host())) {
		return "cross-site request refused: " + from + " " + origin +
			" is not an allowed origin for a request signed in with the session cookie (PERGOLA_CORS_ORIGINS)"
	}
	if hasBody(c) && !isJSON(string(c.GetHeader("Content-Type"))) {
		return "a request signed in with the session cookie must send its body as Content-Type: application/json"
	}
	return ""
}

// refererOrigin returns scheme://host of a Referer, or "" when it has none.
func refererOrigin(ref string) string {
	u, err := url.Parse(ref)
	if ref == "" || err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// sameHost reports whether origin names the host the request was sent to.
// The scheme is not compared: behind a TLS-terminating proxy the server
// sees http while the browser's origin is https.
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && host != "" && strings.EqualFold(u.Host, host)
}

func hasBody(c *app.RequestContext) bool {
	return len(c.Request.Body()) > 0 || len(c.GetHeader("Content-Type")) > 0
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
