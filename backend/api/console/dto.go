// Package console holds the handlers of the builders' console API (/api).
package console

import (
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/llm"
)

// UserDTO is a user as the console API shows it.
type UserDTO struct {
	ID        httpx.ID `json:"id"`
	Email     string   `json:"email"`
	Name      string   `json:"name"`
	IsAdmin   bool     `json:"is_admin"`
	Disabled  bool     `json:"disabled"`
	CreatedAt int64    `json:"created_at"`
	UpdatedAt int64    `json:"updated_at"`
}

// NewUserDTO converts a user; the password hash never leaves.
func NewUserDTO(u identity.User) UserDTO {
	return UserDTO{ID: httpx.ID(u.ID), Email: u.Email, Name: u.Name, IsAdmin: u.IsAdmin, Disabled: u.Disabled,
		CreatedAt: httpx.Unix(u.CreatedAt), UpdatedAt: httpx.Unix(u.UpdatedAt)}
}

type tokenDTO struct {
	ID           httpx.ID   `json:"id"`
	Name         string     `json:"name"`
	Hint         string     `json:"hint"`
	Scopes       []string   `json:"scopes"`
	WorkspaceIDs []httpx.ID `json:"workspace_ids"`
	ExpiresAt    int64      `json:"expires_at"`
	LastUsedAt   int64      `json:"last_used_at"`
	RevokedAt    int64      `json:"revoked_at"`
	CreatedAt    int64      `json:"created_at"`
	Token        string     `json:"token,omitempty"` // the secret, only in the create answer
}

func newTokenDTO(t identity.Token) tokenDTO {
	ids := make([]httpx.ID, len(t.WorkspaceIDs))
	for i, id := range t.WorkspaceIDs {
		ids[i] = httpx.ID(id)
	}
	return tokenDTO{ID: httpx.ID(t.ID), Name: t.Name, Hint: t.Hint, Scopes: t.Scopes, WorkspaceIDs: ids,
		ExpiresAt: httpx.UnixPtr(t.ExpiresAt), LastUsedAt: httpx.UnixPtr(t.LastUsedAt),
		RevokedAt: httpx.UnixPtr(t.RevokedAt), CreatedAt: httpx.Unix(t.CreatedAt)}
}

// WorkspaceDTO is a workspace as the console API shows it.
type WorkspaceDTO struct {
	ID          httpx.ID `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Kind        string   `json:"kind"`
	OwnerID     httpx.ID `json:"owner_id"`
	Role        string   `json:"role,omitempty"`
	CreatedAt   int64    `json:"created_at"`
	UpdatedAt   int64    `json:"updated_at"`
}

// NewWorkspaceDTO converts a workspace, with the caller's role if known.
func NewWorkspaceDTO(ws identity.Workspace, role identity.Role) WorkspaceDTO {
	return WorkspaceDTO{ID: httpx.ID(ws.ID), Name: ws.Name, Description: ws.Description, Kind: string(ws.Kind),
		OwnerID: httpx.ID(ws.OwnerID), Role: string(role), CreatedAt: httpx.Unix(ws.CreatedAt), UpdatedAt: httpx.Unix(ws.UpdatedAt)}
}

type memberDTO struct {
	UserID    httpx.ID `json:"user_id"`
	Email     string   `json:"email"`
	Name      string   `json:"name"`
	Role      string   `json:"role"`
	CreatedAt int64    `json:"created_at"`
}

func newMemberDTO(m identity.Member) memberDTO {
	return memberDTO{UserID: httpx.ID(m.UserID), Email: m.UserEmail, Name: m.UserName, Role: string(m.Role), CreatedAt: httpx.Unix(m.CreatedAt)}
}

// ModelDTO is a model configuration as the API shows it: never the key.
type ModelDTO struct {
	ID            string           `json:"id"`
	Name          string           `json:"name"`
	Provider      string           `json:"provider"`
	BaseURL       string           `json:"base_url"`
	Model         string           `json:"model"`
	Capabilities  llm.Capabilities `json:"capabilities"`
	ContextWindow int              `json:"context_window"`
	Enabled       bool             `json:"enabled"`
	Kind          string           `json:"kind"`
	Dimensions    int              `json:"dimensions"`
	Default       bool             `json:"default"`
	Source        string           `json:"source"`
	HasAPIKey     bool             `json:"has_api_key"`
	APIKeyEnv     string           `json:"api_key_env,omitempty"`
}

// NewModelDTO converts a model configuration without its secret.
func NewModelDTO(m llm.Model) ModelDTO {
	return ModelDTO{ID: m.ID, Name: m.Name, Provider: m.Provider, BaseURL: m.BaseURL, Model: m.Model,
		Capabilities: m.Capabilities, ContextWindow: m.ContextWindow, Enabled: m.Enabled, Source: m.Source,
		Kind: m.KindOrChat(), Dimensions: m.Dimensions, Default: m.Default,
		HasAPIKey: m.APIKey != "", APIKeyEnv: m.APIKeyEnv}
}
