package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// userAgent names Pergola to the APIs plugins call.
const userAgent = "Pergola-Plugin/1"

// callHTTP sends an OpenAPI tool's request through the guarded client.
// An OAuth2 token the API refuses (401) is fetched again once.
func (s *Service) callHTTP(ctx context.Context, c *call) (string, error) {
	r, err := c.tool.BuildRequest(c.args)
	if err != nil {
		return "", err
	}
	resp, body, err := s.send(ctx, c, r, false)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && c.pl.Auth.Type == plugin.AuthOAuth2Client {
		resp, body, err = s.send(ctx, c, r, true)
	}
	if err != nil {
		return "", err
	}
	return responseText(resp, body)
}

func (s *Service) send(ctx context.Context, c *call, r *plugin.Request, fresh bool) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL.String(), bytes.NewReader(r.Body))
	if err != nil {
		return nil, nil, fmt.Errorf("the request cannot be built: %v", err)
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.5")
	req.Header.Set("User-Agent", userAgent)
	cred, err := s.credentials(ctx, c.pl.Auth, fresh)
	if err != nil {
		return nil, nil, err
	}
	cred.apply(req)
	c.trace.request(req, r.Body, cred.mask)
	req = req.WithContext(withCredentialHeaders(ctx, cred.header))
	resp, err := s.d.HTTP.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s failed: %s", req.Method, where(req.URL), reason(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the answer of %s %s failed: %s", req.Method, where(req.URL), reason(err))
	}
	body = hideSecrets(body, cred.mask)
	c.trace.response(resp, body)
	return resp, body, nil
}

// where shows a URL without its query, which may carry a key.
func where(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// reason is an error's text without the request wrapping that repeats
// the URL: the refusal of the egress guard as it is, the transport error
// otherwise.
func reason(err error) string {
	if errors.Is(err, errs.ErrForbidden) {
		e := err
		for next := errors.Unwrap(e); next != nil && errors.Is(next, errs.ErrForbidden); next = errors.Unwrap(e) {
			e = next
		}
		return e.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return "no answer in time"
		}
		return ue.Err.Error()
	}
	return err.Error()
}

type credentialHeadersKey struct{}

// withCredentialHeaders notes which headers of a request carry
// credentials, for keepCredentialsHome.
func withCredentialHeaders(ctx context.Context, h http.Header) context.Context {
	if len(h) == 0 {
		return ctx
	}
	return context.WithValue(ctx, credentialHeadersKey{}, h)
}

// keepCredentialsHome wraps a client so that a redirect to another host
// does not carry the plugin's credential headers along: Go drops only
// Authorization and Cookie by itself, and an API key travels in a header
// of any name. The client's own redirect check (the egress guard's) runs
// first.
func keepCredentialsHome(c *http.Client) *http.Client {
	out := *c
	check := c.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if check != nil {
			if err := check(req, via); err != nil {
				return err
			}
		} else if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if h, ok := req.Context().Value(credentialHeadersKey{}).(http.Header); ok && req.URL.Host != via[0].URL.Host {
			for k := range h {
				req.Header.Del(k)
			}
		}
		return nil
	}
	return &out
}

// hideSecrets masks the plugin's credentials in an answer's body: an API
// that echoes the key it refused must not show it to the model, the
// trace or an error.
func hideSecrets(body []byte, secrets []string) []byte {
	for _, sec := range secrets {
		if sec != "" && (bytes.Contains(body, []byte(sec)) || bytes.Contains(body, []byte(url.QueryEscape(sec)))) {
			return []byte(mask(string(body), secrets))
		}
	}
	return body
}
