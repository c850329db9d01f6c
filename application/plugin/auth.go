package plugin

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"

	"github.com/pergola-ai/pergola/domain/plugin"
)

// credentials are what a plugin's auth adds to a request.
type credentials struct {
	header http.Header
	query  url.Values
	// mask lists the values a debug run must not show.
	mask []string
}

// credentials computes what auth adds; an OAuth2 token is fetched (or
// taken from the cache unless fresh).
func (s *Service) credentials(ctx context.Context, a plugin.Auth, fresh bool) (*credentials, error) {
	c := &credentials{header: http.Header{}, query: url.Values{}, mask: a.Secrets()}
	switch a.Type {
	case plugin.AuthAPIKey:
		if a.In == plugin.KeyInQuery {
			c.query.Set(a.Name, a.Key)
		} else {
			c.header.Set(a.Name, a.Key)
		}
	case plugin.AuthBearer:
		c.header.Set("Authorization", "Bearer "+a.Token)
	case plugin.AuthBasic:
		enc := base64.StdEncoding.EncodeToString([]byte(a.Username + ":" + a.Password))
		c.header.Set("Authorization", "Basic "+enc)
		c.mask = append(c.mask, enc)
	case plugin.AuthOAuth2Client:
		tok, err := s.tokens.token(ctx, a, fresh)
		if err != nil {
			return nil, err
		}
		c.header.Set("Authorization", "Bearer "+tok)
		c.mask = append(c.mask, tok)
	}
	return c, nil
}

// apply adds the credentials to req.
func (c *credentials) apply(req *http.Request) {
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if len(c.query) > 0 {
		q := req.URL.Query()
		for k, vs := range c.query {
			q[k] = vs
		}
		req.URL.RawQuery = q.Encode()
	}
}

// mcpServer is where an MCP plugin connects, with its auth as headers (or
// as query parameters of the URL).
// serverOf is where a version (or the draft) of an MCP plugin connects.
func (s *Service) serverOf(ctx context.Context, pl *plugin.Plugin, spec *plugin.Spec) (MCPServer, error) {
	if spec.Transport == plugin.TransportStdio {
		return MCPServer{Transport: plugin.TransportStdio, Command: spec.Command, Args: spec.Args, Env: pl.Env}, nil
	}
	return s.mcpServer(ctx, spec.ServerURL, spec.Transport, pl.Auth, false)
}

func (s *Service) mcpServer(ctx context.Context, endpoint, transport string, a plugin.Auth, fresh bool) (MCPServer, error) {
	c, err := s.credentials(ctx, a, fresh)
	if err != nil {
		return MCPServer{}, err
	}
	headers := map[string]string{}
	for k := range c.header {
		headers[k] = c.header.Get(k)
	}
	if len(c.query) > 0 {
		u, err := url.Parse(endpoint)
		if err != nil {
			return MCPServer{}, err
		}
		q := u.Query()
		for k, vs := range c.query {
			q[k] = vs
		}
		u.RawQuery = q.Encode()
		endpoint = u.String()
	}
	return MCPServer{URL: endpoint, Transport: transport, Headers: headers}, nil
}
