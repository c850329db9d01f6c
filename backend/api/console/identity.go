package console

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/protocol"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/middleware"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Identity serves sign-in, the caller, tokens, workspaces and members.
type Identity struct {
	Svc *identityapp.Service
}

// Login answers POST /api/auth/login with a session token and cookie.
func (h Identity) Login(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	s, err := h.Svc.Login(ctx, req.Email, req.Password)
	if err != nil {
		return err
	}
	cookie := protocol.AcquireCookie()
	defer protocol.ReleaseCookie(cookie)
	cookie.SetKey(middleware.SessionCookie)
	cookie.SetValue(s.Secret)
	cookie.SetPath("/")
	cookie.SetHTTPOnly(true)
	cookie.SetSameSite(protocol.CookieSameSiteLaxMode)
	cookie.SetExpire(s.ExpiresAt)
	c.Response.Header.SetCookie(cookie)
	httpx.OK(c, map[string]any{"token": s.Secret, "expires_at": s.ExpiresAt.Unix(), "user": NewUserDTO(s.User)})
	return nil
}

// Logout answers POST /api/auth/logout by revoking the session.
func (h Identity) Logout(ctx context.Context, c *app.RequestContext) error {
	if err := h.Svc.Logout(ctx, httpx.Caller(c)); err != nil {
		return err
	}
	c.SetCookie(middleware.SessionCookie, "", -1, "/", "", protocol.CookieSameSiteLaxMode, false, true)
	httpx.OK(c, nil)
	return nil
}

// Me answers GET /api/me.
func (h Identity) Me(ctx context.Context, c *app.RequestContext) error {
	u, err := h.Svc.Me(ctx, httpx.Caller(c))
	if err != nil {
		return err
	}
	httpx.OK(c, NewUserDTO(*u))
	return nil
}

// ListTokens answers GET /api/tokens.
func (h Identity) ListTokens(ctx context.Context, c *app.RequestContext) error {
	toks, err := h.Svc.ListTokens(ctx, httpx.Caller(c))
	if err != nil {
		return err
	}
	out := make([]tokenDTO, len(toks))
	for i, t := range toks {
		out[i] = newTokenDTO(t)
	}
	httpx.OK(c, httpx.List[tokenDTO]{Items: out, Total: int64(len(out))})
	return nil
}

// CreateToken answers POST /api/tokens; the secret is in the answer only.
func (h Identity) CreateToken(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		Name          string     `json:"name"`
		Scopes        []string   `json:"scopes"`
		WorkspaceIDs  []httpx.ID `json:"workspace_ids"`
		ExpiresInDays *int       `json:"expires_in_days"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	ids := make([]int64, len(req.WorkspaceIDs))
	for i, id := range req.WorkspaceIDs {
		ids[i] = int64(id)
	}
	nt, err := h.Svc.CreateToken(ctx, httpx.Caller(c), identityapp.CreateTokenInput{
		Name: req.Name, Scopes: req.Scopes, WorkspaceIDs: ids, ExpiresInDays: req.ExpiresInDays,
	})
	if err != nil {
		return err
	}
	dto := newTokenDTO(nt.Token)
	dto.Token = nt.Secret
	c.JSON(http.StatusCreated, httpx.Envelope{Data: dto})
	return nil
}

// RevokeToken answers DELETE /api/tokens/:id.
func (h Identity) RevokeToken(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Svc.RevokeToken(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, map[string]any{"id": httpx.ID(id)})
	return nil
}

func memberDTOs(ms []identity.Member) []memberDTO {
	out := make([]memberDTO, len(ms))
	for i, m := range ms {
		out[i] = newMemberDTO(m)
	}
	return out
}
