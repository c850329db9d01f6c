package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/plugin"
)

// tokenCache fetches OAuth2 client-credentials tokens and keeps them until
// shortly before they expire. Concurrent calls that need the same token
// wait for one fetch.
type tokenCache struct {
	client  *http.Client
	now     func() time.Time
	mu      sync.Mutex
	entries map[string]*tokenEntry
}

type tokenEntry struct {
	mu      sync.Mutex
	token   string
	expires time.Time
}

// defaultTokenLife is assumed when the token endpoint names no expiry.
const defaultTokenLife = time.Hour

// maxTokenResponse bounds what is read from a token endpoint.
const maxTokenResponse = 64 << 10

func newTokenCache(client *http.Client, now func() time.Time) *tokenCache {
	return &tokenCache{client: client, now: now, entries: map[string]*tokenEntry{}}
}

// token returns a valid access token for a; fresh skips the cached one
// (after the API refused it).
func (c *tokenCache) token(ctx context.Context, a plugin.Auth, fresh bool) (string, error) {
	e := c.entry(a)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !fresh && e.token != "" && c.now().Before(e.expires) {
		return e.token, nil
	}
	tok, life, err := c.fetch(ctx, a)
	if err != nil {
		e.token = ""
		return "", err
	}
	e.token, e.expires = tok, c.now().Add(life-min(30*time.Second, life/10))
	return tok, nil
}

// entry returns the cache entry of a's credentials: changing any of them
// makes a new entry, so a rotated secret never reuses an old token.
func (c *tokenCache) entry(a plugin.Auth) *tokenEntry {
	h := sha256.Sum256([]byte(strings.Join([]string{a.TokenURL, a.ClientID, a.ClientSecret, strings.Join(a.Scopes, " "), a.ClientAuth}, "\x00")))
	key := hex.EncodeToString(h[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		e = &tokenEntry{}
		c.entries[key] = e
	}
	return e
}

// fetch asks the token endpoint for a token (RFC 6749 §4.4).
func (c *tokenCache) fetch(ctx context.Context, a plugin.Auth) (string, time.Duration, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(a.Scopes) > 0 {
		form.Set("scope", strings.Join(a.Scopes, " "))
	}
	if a.ClientAuth == plugin.ClientAuthBody {
		form.Set("client_id", a.ClientID)
		form.Set("client_secret", a.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, fmt.Errorf("the OAuth2 token URL is not valid: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	secrets := []string{a.ClientSecret}
	if a.ClientAuth != plugin.ClientAuthBody {
		req.SetBasicAuth(url.QueryEscape(a.ClientID), url.QueryEscape(a.ClientSecret))
		_, basic, _ := strings.Cut(req.Header.Get("Authorization"), " ")
		secrets = append(secrets, basic)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("the OAuth2 token request failed: %s", reason(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	body = hideSecrets(body, secrets) // an endpoint that echoes the request
	if resp.StatusCode/100 != 2 {
		return "", 0, fmt.Errorf("the OAuth2 token endpoint answered HTTP %d: %s", resp.StatusCode, excerpt(body, 300))
	}
	var out struct {
		AccessToken string          `json:"access_token"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.AccessToken == "" {
		return "", 0, fmt.Errorf("the OAuth2 token endpoint sent no access_token: %s", excerpt(body, 300))
	}
	return out.AccessToken, tokenLife(out.ExpiresIn), nil
}

// tokenLife reads expires_in, a number or (from some servers) a string.
func tokenLife(raw json.RawMessage) time.Duration {
	n, err := strconv.ParseFloat(strings.Trim(string(raw), `"`), 64)
	if err != nil || n <= 0 {
		return defaultTokenLife
	}
	return time.Duration(n * float64(time.Second))
}
