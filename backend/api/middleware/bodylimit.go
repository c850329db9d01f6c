package middleware

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"
)

// BodyLimitRoutes is BodyLimit with larger limits for some paths (the file
// upload): a request to a path of larger gets that limit, every other
// request max.
func BodyLimitRoutes(max int, larger map[string]int) app.HandlerFunc {
	def := BodyLimit(max)
	byPath := make(map[string]app.HandlerFunc, len(larger))
	for path, n := range larger {
		if n > max {
			byPath[path] = BodyLimit(n)
		}
	}
	return func(ctx context.Context, c *app.RequestContext) {
		if h, ok := byPath[string(c.Path())]; ok {
			h(ctx, c)
			return
		}
		def(ctx, c)
	}
}
