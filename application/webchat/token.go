package webchat

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Token lifetimes.
const (
	// AnonymousTokenTTL is how long an anonymous end user's token lives;
	// every session request with it renews it, so a returning browser
	// keeps its history.
	AnonymousTokenTTL = 365 * 24 * time.Hour
	// MaxIdentifiedTTL bounds how far ahead a site-signed token may
	// expire: a leaked token must not be good for long.
	MaxIdentifiedTTL = 24 * time.Hour
	// tokenLeeway absorbs the clock skew between a site and Pergola.
	tokenLeeway = time.Minute
)

// anonPrefix starts the subject of anonymous end users; sites may not use
// it for their own users.
const anonPrefix = "anon:"

// anonIssuer marks the tokens Pergola signs itself.
const anonIssuer = "pergola"

// maxNameLen bounds the display name a site puts in a token.
const maxNameLen = 100

// EndUser is the person behind a token.
type EndUser struct {
	ID        string // "web:<sub>" or "web:anon:<random>"
	Name      string // from an identified token's "name"; may be empty
	Anonymous bool
	ExpiresAt time.Time
}

// claims are the claims of both kinds of token.
type claims struct {
	Name string `json:"name,omitempty"`
	jwt.RegisteredClaims
}

// issueAnonymous signs a token for the anonymous end user random of c.
func (s *Service) issueAnonymous(c *channel.Channel, random string) (string, EndUser, error) {
	now := s.d.Now()
	exp := now.Add(AnonymousTokenTTL)
	cl := claims{RegisteredClaims: jwt.RegisteredClaims{Issuer: anonIssuer, Subject: anonPrefix + random,
		Audience: jwt.ClaimStrings{c.ConnectorID()}, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp)}}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, cl).SignedString(s.d.AnonKey)
	if err != nil {
		return "", EndUser{}, fmt.Errorf("sign an anonymous token: %w", err)
	}
	return tok, EndUser{ID: "web:" + anonPrefix + random, Anonymous: true, ExpiresAt: exp.Truncate(time.Second)}, nil
}

// newAnonymousID returns 128 random bits, URL-safe.
func newAnonymousID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails; it crashes the program instead
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Identify returns the end user of a token for c: Pergola's own for
// anonymous users, or one the site signed with the channel's
// end_user_secret. Every unusable token is errs.ErrUnauthenticated with
// what is wrong; an anonymous token on a channel that no longer takes
// anonymous users is errs.ErrForbidden.
func (s *Service) Identify(c *channel.Channel, raw string) (EndUser, error) {
	if raw == "" {
		return EndUser{}, errs.Unauthenticated("no end-user token: send the token from POST /chat/%d/session as Authorization: Bearer <token>", c.ID)
	}
	if err := checkTimeClaims(raw); err != nil {
		return EndUser{}, err
	}
	var peek claims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &peek); err != nil {
		return EndUser{}, errs.Unauthenticated("the end-user token is not a JWT (%v): send the token from POST /chat/%d/session, or one your backend signs", err, c.ID)
	}
	if strings.HasPrefix(peek.Subject, anonPrefix) {
		return s.anonymous(c, raw)
	}
	return s.identified(c, raw)
}

// anonymous verifies a token Pergola signed.
func (s *Service) anonymous(c *channel.Channel, raw string) (EndUser, error) {
	cl, err := s.parse(c, raw, s.d.AnonKey)
	if errors.Is(err, jwt.ErrTokenSignatureInvalid) && s.signedBySite(c, raw) {
		return EndUser{}, errs.Unauthenticated(`the token's sub must not start with "anon:", which marks Pergola's anonymous users; use your own user id`)
	}
	if err != nil {
		return EndUser{}, tokenError(c, err, "anonymous token", "it was not signed by this server: start a new session with POST /chat/"+c.ConnectorID()+"/session")
	}
	if !c.Web().AllowAnonymous {
		return EndUser{}, anonymousRefused(c)
	}
	return EndUser{ID: "web:" + cl.Subject, Anonymous: true, ExpiresAt: cl.ExpiresAt.Time}, nil
}

// signedBySite reports whether raw carries a valid signature with the
// channel's end_user_secret.
func (s *Service) signedBySite(c *channel.Channel, raw string) bool {
	secret := c.Web().EndUserSecret
	if secret == "" {
		return false
	}
	_, err := s.parse(c, raw, []byte(secret))
	return err == nil || !errors.Is(err, jwt.ErrTokenSignatureInvalid)
}

// identified verifies a token the site's backend signed.
func (s *Service) identified(c *channel.Channel, raw string) (EndUser, error) {
	secret := c.Web().EndUserSecret
	if secret == "" {
		return EndUser{}, errs.Unauthenticated("web chat %d takes no site-signed tokens: set the channel's end_user_secret, or let the widget start an anonymous session", c.ID)
	}
	cl, err := s.parse(c, raw, []byte(secret))
	if err != nil {
		return EndUser{}, tokenError(c, err, "token", "sign it with HS256 and the channel's end_user_secret")
	}
	if cl.ExpiresAt.Sub(s.d.Now()) > MaxIdentifiedTTL+tokenLeeway {
		return EndUser{}, errs.Unauthenticated("the token's exp is %s ahead; it must be at most 24 hours ahead: sign short-lived tokens and fetch new ones",
			cl.ExpiresAt.Sub(s.d.Now()).Round(time.Minute))
	}
	id := "web:" + cl.Subject
	if cl.Subject == "" {
		return EndUser{}, errs.Unauthenticated("the token has no sub: put your user's id in sub")
	}
	if err := chat.CheckUserID("sub", id); err != nil {
		return EndUser{}, errs.Unauthenticated("the token's %v (the end user id is \"web:\" and sub)", err)
	}
	return EndUser{ID: id, Name: displayName(cl.Name), ExpiresAt: cl.ExpiresAt.Time}, nil
}

// parse verifies raw with key: HS256, aud the channel id, exp required.
func (s *Service) parse(c *channel.Channel, raw string, key []byte) (*claims, error) {
	p := jwt.NewParser(jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithAudience(c.ConnectorID()),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(tokenLeeway), jwt.WithTimeFunc(s.d.Now))
	var cl claims
	if _, err := p.ParseWithClaims(raw, &cl, func(*jwt.Token) (any, error) { return key, nil }); err != nil {
		return nil, err
	}
	return &cl, nil
}

// tokenError says what is wrong with a token jwt refused.
// fix says how to make a token with a good signature.
func tokenError(c *channel.Channel, err error, what, fix string) error {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return errs.Unauthenticated("the %s expired: get a new one", what)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return errs.Unauthenticated("the %s's signature does not match: %s", what, fix)
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return errs.Unauthenticated("the %s is for another chat: its aud must be %q, this channel's id", what, c.ConnectorID())
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && strings.Contains(err.Error(), "aud claim"):
		return errs.Unauthenticated("the %s has no aud: set aud to %q, this channel's id", what, c.ConnectorID())
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return errs.Unauthenticated("the %s has no exp: set exp, at most 24 hours ahead", what)
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return errs.Unauthenticated("the %s is not valid yet (nbf or iat in the future): check your server's clock", what)
	}
	return errs.Unauthenticated("the %s is refused: %v", what, err)
}

func anonymousRefused(c *channel.Channel) error {
	return errs.Forbidden("web chat %d does not take anonymous users: the site must pass a token signed with the channel's end_user_secret (data-user-token or data-token-url)", c.ID)
}

// displayName keeps a sane display name: trimmed, at most maxNameLen
// characters.
func displayName(n string) string {
	n = strings.TrimSpace(n)
	if utf8.RuneCountInString(n) > maxNameLen {
		n = string([]rune(n)[:maxNameLen])
	}
	return n
}
