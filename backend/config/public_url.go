package config

import (
	"fmt"
	"net/url"
	"strings"
)

// validatePublicURL accepts an empty value (webhook URLs then use each
// request's own base) or an absolute http(s) URL without query or fragment.
func validatePublicURL(v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("PERGOLA_PUBLIC_URL: must be an absolute http(s) URL such as https://pergola.example.com, got %q", v)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("PERGOLA_PUBLIC_URL: must not carry a query, a fragment or credentials, got %q", v)
	}
	return nil
}

// PublicBase returns PublicURL without a trailing slash, the prefix of
// every channel's webhook URL; "" when it is not set.
func (c Config) PublicBase() string { return strings.TrimRight(c.PublicURL, "/") }
