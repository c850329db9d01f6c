package plugin

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// AuthType names how a plugin authenticates its calls.
type AuthType string

// Auth types.
const (
	AuthNone         AuthType = "none"
	AuthAPIKey       AuthType = "api_key"
	AuthBearer       AuthType = "bearer"
	AuthBasic        AuthType = "basic"
	AuthOAuth2Client AuthType = "oauth2_client_credentials"
)

// Where an API key travels.
const (
	KeyInHeader = "header"
	KeyInQuery  = "query"
)

// How an OAuth2 client authenticates at the token endpoint.
const (
	ClientAuthBasic = "basic" // HTTP Basic with client id and secret (RFC 6749 §2.3.1)
	ClientAuthBody  = "body"  // client_id and client_secret in the form body
)

// Auth is how a plugin's calls authenticate. Key, Token, Password and
// ClientSecret are secrets: stores encrypt them and the API never returns
// them.
type Auth struct {
	Type AuthType
	// API key.
	In   string // KeyInHeader or KeyInQuery
	Name string // header or query parameter name
	Key  string
	// Bearer token.
	Token string
	// Basic.
	Username string
	Password string
	// OAuth2 client credentials.
	TokenURL     string
	ClientID     string
	ClientSecret string
	Scopes       []string
	ClientAuth   string // ClientAuthBasic (default) or ClientAuthBody
}

// headerName is what a header or query parameter name may look like.
var headerName = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+.^_|~-]{1,128}$`)

// Normalize fills defaults: type none, API key in a header, OAuth2 client
// authentication by HTTP Basic.
func (a *Auth) Normalize() {
	a.Type = AuthType(strings.TrimSpace(string(a.Type)))
	if a.Type == "" {
		a.Type = AuthNone
	}
	if a.Type == AuthAPIKey && a.In == "" {
		a.In = KeyInHeader
	}
	if a.Type == AuthOAuth2Client && a.ClientAuth == "" {
		a.ClientAuth = ClientAuthBasic
	}
}

// Validate checks the fields the type needs and names the first wrong
// one, e.g. "auth.key".
func (a *Auth) Validate() error {
	switch a.Type {
	case AuthNone:
		return nil
	case AuthAPIKey:
		return a.validateAPIKey()
	case AuthBearer:
		return required("auth.token", a.Token)
	case AuthBasic:
		return required("auth.username", a.Username)
	case AuthOAuth2Client:
		return a.validateOAuth2()
	}
	return errs.Invalid("auth.type", "unsupported auth type %q; use none, api_key, bearer, basic or oauth2_client_credentials", a.Type)
}

func (a *Auth) validateAPIKey() error {
	if a.In != KeyInHeader && a.In != KeyInQuery {
		return errs.Invalid("auth.location", "must be header or query, got %q", a.In)
	}
	if !headerName.MatchString(a.Name) {
		return errs.Invalid("auth.name", "must name the %s that carries the key (1-128 letters, digits or -_.), got %q", a.In, a.Name)
	}
	return required("auth.key", a.Key)
}

func (a *Auth) validateOAuth2() error {
	u, err := url.Parse(a.TokenURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errs.Invalid("auth.token_url", "must be the http(s) URL of the token endpoint, got %q", a.TokenURL)
	}
	if err := required("auth.client_id", a.ClientID); err != nil {
		return err
	}
	if err := required("auth.client_secret", a.ClientSecret); err != nil {
		return err
	}
	if a.ClientAuth != ClientAuthBasic && a.ClientAuth != ClientAuthBody {
		return errs.Invalid("auth.client_auth", "must be basic or body, got %q", a.ClientAuth)
	}
	return nil
}

func required(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return errs.Invalid(field, "is required")
	}
	if len(v) > 8192 {
		return errs.Invalid(field, "must be at most 8192 characters")
	}
	return nil
}

// KeepSecrets fills the secrets a change left empty from prev, when the
// type did not change, so a builder can edit an auth without typing the
// secrets again.
func (a *Auth) KeepSecrets(prev Auth) {
	if a.Type != prev.Type {
		return
	}
	keep := func(dst *string, old string) {
		if *dst == "" {
			*dst = old
		}
	}
	keep(&a.Key, prev.Key)
	keep(&a.Token, prev.Token)
	keep(&a.Password, prev.Password)
	keep(&a.ClientSecret, prev.ClientSecret)
}

// Secrets returns the non-empty secret values, so a debug run can mask
// them wherever they appear.
func (a *Auth) Secrets() []string {
	var out []string
	for _, s := range []string{a.Key, a.Token, a.Password, a.ClientSecret} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// HasSecret reports whether a secret is set.
func (a *Auth) HasSecret() bool { return len(a.Secrets()) > 0 }

// Public returns a copy without the secrets, as the API shows it.
func (a Auth) Public() Auth {
	a.Key, a.Token, a.Password, a.ClientSecret = "", "", "", ""
	a.Scopes = append([]string(nil), a.Scopes...)
	return a
}
