// Package plugin holds the use cases of plugins: OpenAPI tools with auth,
// built-in plugins, MCP servers, their invocation and administration.
package plugin

// Service runs the plugin use cases.
type Service struct{}
