package plugins

import (
	"strconv"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// AuthDTO is a plugin's auth as the API shows it: never the secrets, only
// whether one is set.
type AuthDTO struct {
	Type       string   `json:"type"`
	Location   string   `json:"location,omitempty"`
	Name       string   `json:"name,omitempty"`
	Username   string   `json:"username,omitempty"`
	TokenURL   string   `json:"token_url,omitempty"`
	ClientID   string   `json:"client_id,omitempty"`
	Scopes     []string `json:"scopes,omitempty"`
	ClientAuth string   `json:"client_auth,omitempty"`
	HasSecret  bool     `json:"has_secret"`
}

func newAuthDTO(a plugin.Auth) AuthDTO {
	pub := a.Public()
	return AuthDTO{Type: string(pub.Type), Location: pub.In, Name: pub.Name, Username: pub.Username, TokenURL: pub.TokenURL,
		ClientID: pub.ClientID, Scopes: pub.Scopes, ClientAuth: pub.ClientAuth, HasSecret: a.HasSecret()}
}

// ToolDTO is one tool of a plugin.
type ToolDTO struct {
	Name        string         `json:"name"`
	OperationID string         `json:"operation_id"`
	Description string         `json:"description"`
	Method      string         `json:"method,omitempty"`
	Path        string         `json:"path,omitempty"`
	ServerURL   string         `json:"server_url,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
	Enabled     bool           `json:"enabled"`
}

func newToolDTOs(pl *plugin.Plugin, spec *plugin.Spec, withSchema bool) []ToolDTO {
	out := make([]ToolDTO, len(spec.Tools))
	for i, t := range spec.Tools {
		d := ToolDTO{Name: t.Name, OperationID: t.OperationID, Description: t.Description, Method: t.Method, Path: t.Path,
			ServerURL: t.ServerURL, Enabled: pl.Usable(t.Name) == nil}
		if pl.Kind == plugin.KindBuiltin {
			d.Method, d.Path, d.ServerURL = "", "", ""
		}
		if withSchema {
			d.Parameters = t.Schema
		}
		out[i] = d
	}
	return out
}

// PluginDTO is a plugin with its draft.
type PluginDTO struct {
	ID               httpx.ID  `json:"id"`
	WorkspaceID      string    `json:"workspace_id"` // "" for a built-in
	Scope            string    `json:"scope"`        // workspace or catalog
	Kind             string    `json:"kind"`
	Name             string    `json:"name"`
	Description      string    `json:"description"`
	CreatorID        string    `json:"creator_id"`
	ServerURL        string    `json:"server_url,omitempty"`
	Transport        string    `json:"transport,omitempty"`
	Command          string    `json:"command,omitempty"`
	Args             []string  `json:"args,omitempty"`
	EnvNames         []string  `json:"env_names,omitempty"` // the values are secrets
	Auth             AuthDTO   `json:"auth"`
	Tools            []ToolDTO `json:"tools"`
	DraftRevision    int64     `json:"draft_revision"`
	PublishedVersion string    `json:"published_version"` // "" while never published
	PublishedAt      int64     `json:"published_at"`
	Enabled          bool      `json:"enabled"`
	DisabledTools    []string  `json:"disabled_tools"`
	CreatedAt        int64     `json:"created_at"`
	UpdatedAt        int64     `json:"updated_at"`
	OpenAPI          *string   `json:"openapi,omitempty"`
	Warnings         []string  `json:"warnings,omitempty"`
}

func newPluginDTO(pl *plugin.Plugin, withSchema bool) PluginDTO {
	d := PluginDTO{
		ID: httpx.ID(pl.ID), WorkspaceID: httpx.OptionalID(pl.WorkspaceID), Scope: "workspace", Kind: string(pl.Kind),
		Name: pl.Name, Description: pl.Description, CreatorID: httpx.OptionalID(pl.CreatorID),
		ServerURL: pl.Draft.ServerURL, Transport: pl.Draft.Transport, Command: pl.Draft.Command, Args: pl.Draft.Args,
		EnvNames: pl.EnvNames(), Auth: newAuthDTO(pl.Auth),
		Tools: newToolDTOs(pl, &pl.Draft, withSchema), DraftRevision: pl.DraftRevision,
		PublishedVersion: versionLabel(pl.PublishedVersion), PublishedAt: httpx.UnixPtr(pl.PublishedAt),
		Enabled: pl.Enabled, DisabledTools: httpx.NonNil(pl.DisabledTools),
		CreatedAt: httpx.Unix(pl.CreatedAt), UpdatedAt: httpx.Unix(pl.UpdatedAt),
	}
	if pl.IsCatalog() {
		d.Scope = "catalog"
	}
	if withSchema && pl.Kind == plugin.KindOpenAPI {
		src := pl.Draft.Source
		d.OpenAPI = &src
	}
	return d
}

// VersionDTO is a published version of a plugin.
type VersionDTO struct {
	PluginID    httpx.ID  `json:"plugin_id"`
	Version     string    `json:"version"`
	PublisherID string    `json:"publisher_id"`
	CreatedAt   int64     `json:"created_at"`
	ServerURL   string    `json:"server_url,omitempty"`
	Command     string    `json:"command,omitempty"`
	Args        []string  `json:"args,omitempty"`
	Tools       []ToolDTO `json:"tools"`
	OpenAPI     *string   `json:"openapi,omitempty"`
}

func newVersionDTO(pl *plugin.Plugin, v *plugin.Version, full bool) VersionDTO {
	d := VersionDTO{PluginID: httpx.ID(v.PluginID), Version: v.Label(), PublisherID: httpx.OptionalID(v.PublisherID),
		CreatedAt: httpx.Unix(v.CreatedAt), ServerURL: v.Spec.ServerURL, Command: v.Spec.Command, Args: v.Spec.Args,
		Tools: newToolDTOs(pl, &v.Spec, full)}
	if full && pl.Kind == plugin.KindOpenAPI {
		src := v.Spec.Source
		d.OpenAPI = &src
	}
	return d
}

// DebugDTO is a debug run.
type DebugDTO struct {
	Tool       string            `json:"tool"`
	Version    string            `json:"version"` // "" for the draft
	Request    DebugRequestDTO   `json:"request"`
	Response   *DebugResponseDTO `json:"response"`
	OK         bool              `json:"ok"`
	Result     string            `json:"result"`
	Error      string            `json:"error"`
	DurationMs float64           `json:"duration_ms"`
}

// DebugRequestDTO is the request of a debug run, secrets masked.
type DebugRequestDTO struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// DebugResponseDTO is the answer of a debug run.
type DebugResponseDTO struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers"`
	Body      string            `json:"body"`
	Truncated bool              `json:"truncated"`
}

func newDebugDTO(r *pluginapp.DebugRun) DebugDTO {
	d := DebugDTO{Tool: r.Tool, Version: versionLabel(r.Version), OK: r.Error == "", Result: r.Result, Error: r.Error,
		DurationMs: float64(r.Duration.Microseconds()) / 1000,
		Request:    DebugRequestDTO{Method: r.Request.Method, URL: r.Request.URL, Headers: r.Request.Headers, Body: r.Request.Body}}
	if d.Request.Headers == nil {
		d.Request.Headers = map[string]string{}
	}
	if resp := r.Response; resp != nil {
		d.Response = &DebugResponseDTO{Status: resp.Status, Headers: resp.Headers, Body: resp.Body, Truncated: resp.Truncated}
	}
	return d
}

func versionLabel(v int64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}
