// Package plugin holds plugins: an HTTP API described by an OpenAPI
// document, an MCP server, or a built-in plugin of the catalog, with auth,
// a draft and immutable published versions. Each operation (or MCP tool)
// is a tool a bot or workflow can call.
package plugin

import (
	"slices"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Kind says what stands behind a plugin's tools.
type Kind string

// Kinds of plugins.
const (
	KindOpenAPI Kind = "openapi" // an HTTP API described by an OpenAPI 3.0/3.1 document
	KindMCP     Kind = "mcp"     // an MCP server reached over streamable HTTP, SSE or stdio
	KindBuiltin Kind = "builtin" // a built-in plugin of the catalog, run in-process
)

// MCP transports.
const (
	TransportStreamable = "streamable"
	TransportSSE        = "sse"
	// TransportStdio is a command this server runs in a sandbox, spoken
	// to over its stdin and stdout; only platform administrators may
	// register one.
	TransportStdio = "stdio"
)

// CatalogWorkspace is the workspace id of the built-in catalog: its plugins
// are visible to every workspace and belong to none.
const CatalogWorkspace int64 = 0

// Plugin is a plugin with its draft and the number of its latest version.
// Auth is not versioned: rotating a key applies to every version at once.
type Plugin struct {
	ID          int64
	WorkspaceID int64 // CatalogWorkspace for built-ins
	CreatorID   int64
	Kind        Kind
	Name        string
	Description string
	Auth        Auth
	Draft       Spec
	// DraftRevision grows with every save of the draft.
	DraftRevision int64
	// PublishedVersion is the latest version; 0 while never published.
	PublishedVersion int64
	PublishedAt      *time.Time
	// Enabled is the platform-wide switch administrators flip; a disabled
	// plugin cannot be bound or called.
	Enabled bool
	// DisabledTools are tools administrators switched off platform-wide.
	DisabledTools []string
	// Env is the environment of a stdio MCP server's command. Its values
	// are secrets like Auth's: stores encrypt them, the API never returns
	// them, and it is not versioned.
	Env       map[string]string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// IsCatalog reports whether p is a built-in plugin every workspace can use.
func (p *Plugin) IsCatalog() bool { return p.WorkspaceID == CatalogWorkspace }

// IsPublished reports whether p has a version bots can pin.
func (p *Plugin) IsPublished() bool { return p.PublishedVersion > 0 }

// VisibleTo reports whether a workspace may use p: its own plugins and the
// catalog.
func (p *Plugin) VisibleTo(workspaceID int64) bool {
	return p.IsCatalog() || p.WorkspaceID == workspaceID
}

// Usable fails with errs.ErrForbidden when an administrator disabled the
// plugin or the tool; tool may be empty to check the plugin alone.
func (p *Plugin) Usable(tool string) error {
	if !p.Enabled {
		return errs.Forbidden("plugin %d (%s) is disabled by an administrator", p.ID, p.Name)
	}
	if tool != "" && slices.Contains(p.DisabledTools, tool) {
		return errs.Forbidden("tool %s of plugin %d (%s) is disabled by an administrator", tool, p.ID, p.Name)
	}
	return nil
}

// Label is the plugin's id as text, for messages.
func (p *Plugin) Label() string { return strconv.FormatInt(p.ID, 10) }

// Spec is what a version of a plugin calls: its tools and where they go.
type Spec struct {
	// Source is the OpenAPI document as the builder gave it (openapi kind)
	// or the built-in manifest; stores may leave it empty on reads that do
	// not ask for it.
	Source string
	// ServerURL is the MCP endpoint of an MCP plugin. For an OpenAPI
	// plugin it is the base URL the builder set in place of the
	// document's servers (empty: the document's); its tools carry the
	// URL they call.
	ServerURL string
	// Transport is the MCP transport: TransportStreamable, TransportSSE or
	// TransportStdio.
	Transport string
	// Command and Args are what a stdio MCP server runs: an absolute path
	// under /usr (the only tree its sandbox holds) and its arguments.
	Command string
	Args    []string
	Tools   []Tool
}

// Tool returns the tool named name.
func (s *Spec) Tool(name string) (*Tool, bool) {
	for i := range s.Tools {
		if s.Tools[i].Name == name {
			return &s.Tools[i], true
		}
	}
	return nil, false
}

// ToolNames lists the names of the tools, in order.
func (s *Spec) ToolNames() []string {
	out := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		out[i] = t.Name
	}
	return out
}

// Tool is one operation of a plugin as a model sees and calls it.
type Tool struct {
	// Name is what the model calls: the operationId (or method and path)
	// made to fit ^[A-Za-z_][A-Za-z0-9_-]{0,63}$.
	Name string
	// OperationID is the operation's own id: the operationId of an OpenAPI
	// operation or a built-in, the MCP tool's name.
	OperationID string
	Description string
	// Schema is the JSON Schema of the arguments: an object whose
	// properties are the path, query, header and body parameters.
	Schema map[string]any
	// HTTP details, for OpenAPI tools.
	Method    string
	ServerURL string
	Path      string
	Params    []Param
	Body      *Body
}

// Location is where a parameter goes in the request.
type Location string

// Parameter locations.
const (
	InPath   Location = "path"
	InQuery  Location = "query"
	InHeader Location = "header"
	InCookie Location = "cookie"
)

// Param is a path, query, header or cookie parameter; its schema is the
// property of Tool.Schema with the same name.
type Param struct {
	Name     string
	In       Location
	Required bool
	// Explode and Style follow OpenAPI's serialization of arrays and
	// objects; Style "" is the default of the location.
	Explode bool
	Style   string
}

// Body is the request body of an operation.
type Body struct {
	MediaType string // application/json, application/x-www-form-urlencoded or text/plain
	Required  bool
	// Property is the argument that holds the whole body; empty when the
	// body is an object whose properties are arguments of their own.
	Property string
	// Fields are the body's properties that are top-level arguments, when
	// Property is empty.
	Fields []string
}

// Version is an immutable published spec of a plugin.
type Version struct {
	PluginID    int64
	Number      int64
	Spec        Spec
	PublisherID int64
	CreatedAt   time.Time
}

// Label is the version as bots pin it.
func (v *Version) Label() string { return strconv.FormatInt(v.Number, 10) }

// ParseVersion reads a pinned version label; "" is 0 (the latest, or the
// draft). It fails with errs.ErrInvalid naming field.
func ParseVersion(field, label string) (int64, error) {
	if label == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(label, 10, 64)
	if err != nil || n <= 0 {
		return 0, errs.Invalid(field, "must be a published version number such as \"1\", got %q", label)
	}
	return n, nil
}
