package feishu

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// tokenPath is where tenant access tokens of self-built apps are issued.
const tokenPath = "/open-apis/auth/v3/tenant_access_token/internal"

// refreshMargin is how long before its expiry a token is replaced; the
// platform issues a fresh token once less than 30 minutes remain.
const refreshMargin = 30 * time.Minute

// tokenCache holds one tenant access token per app (API base, app id
// and secret), so a changed secret never reuses the old app's token.
type tokenCache struct {
	mu     sync.Mutex
	tokens map[string]cachedToken
}

type cachedToken struct {
	value   string
	renewAt time.Time
}

func newTokenCache() *tokenCache { return &tokenCache{tokens: map[string]cachedToken{}} }

// appKey names a channel's app in the caches without keeping its secret.
func appKey(c *channel.Channel) string {
	sum := sha256.Sum256([]byte(base(c) + "\x00" + setting(c, "app_id") + "\x00" + setting(c, "app_secret")))
	return hex.EncodeToString(sum[:])
}

func (tc *tokenCache) get(key string, now time.Time) (string, bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	t, ok := tc.tokens[key]
	return t.value, ok && now.Before(t.renewAt)
}

func (tc *tokenCache) put(key, value string, renewAt time.Time) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.tokens[key] = cachedToken{value: value, renewAt: renewAt}
}

func (tc *tokenCache) drop(key string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	delete(tc.tokens, key)
}

// token returns the app's tenant access token, from the cache unless
// fresh is set or it is near its expiry. A refused app id or secret is
// errs.ErrUnauthenticated with the platform's code and message.
func (k *Kind) token(ctx context.Context, c *channel.Channel, fresh bool) (string, error) {
	key := appKey(c)
	if v, ok := k.tokens.get(key, k.now()); ok && !fresh {
		return v, nil
	}
	var out struct {
		Token  string `json:"tenant_access_token"`
		Expire int    `json:"expire"`
	}
	in := map[string]string{"app_id": setting(c, "app_id"), "app_secret": setting(c, "app_secret")}
	if err := k.call(ctx, http.MethodPost, base(c), tokenPath, "", in, &out); err != nil {
		return "", refusedApp(err)
	}
	if out.Token == "" {
		return "", errs.New(errs.ErrUnavailable, "feishu %s: no tenant_access_token in the answer", tokenPath)
	}
	k.tokens.put(key, out.Token, k.now().Add(lifetime(out.Expire)))
	return out.Token, nil
}

// lifetime is how long a token lasting expire seconds is used.
func lifetime(expire int) time.Duration {
	d := time.Duration(expire) * time.Second
	if d > 2*refreshMargin {
		return d - refreshMargin
	}
	return d / 2
}

// refusedApp turns the token endpoint's refusals (wrong app id or
// secret: codes 10003, 10014 …) into errs.ErrUnauthenticated.
func refusedApp(err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return errs.Unauthenticated("the app id or secret was refused: code %d: %s", ae.Code, ae.Msg)
	}
	return err
}

// authed runs send with the app's token; when the platform refuses the
// token it is fetched again once and send retried, and a second refusal
// is errs.ErrUnauthenticated with the platform's words.
func (k *Kind) authed(ctx context.Context, c *channel.Channel, send func(token string) error) error {
	token, err := k.token(ctx, c, false)
	if err != nil {
		return err
	}
	err = send(token)
	if !tokenRefused(err) {
		return err
	}
	k.tokens.drop(appKey(c))
	if token, err = k.token(ctx, c, true); err != nil {
		return err
	}
	if err = send(token); tokenRefused(err) {
		return errs.Unauthenticated("the tenant access token was refused twice: %v", err)
	}
	return err
}
