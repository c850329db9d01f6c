package channel

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultWebMessagesPerMinute is how many messages an end user of a web
// channel may send a minute when messages_per_minute is not set.
const DefaultWebMessagesPerMinute = "20"

// maxWebMessagesPerMinute bounds messages_per_minute: past it the limit
// protects nothing.
const maxWebMessagesPerMinute = 600

// checkBool accepts the two spellings a boolean setting is stored in.
func checkBool(v string) string {
	if v != "true" && v != "false" {
		return fmt.Sprintf(`must be "true" or "false", got %q`, v)
	}
	return ""
}

// checkPerMinute accepts a whole number of messages a minute.
func checkPerMinute(v string) string {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxWebMessagesPerMinute {
		return fmt.Sprintf(`must be a whole number from 1 to %d, as a string such as "20"; got %q`, maxWebMessagesPerMinute, v)
	}
	return ""
}

// WebSettings are the settings of a web channel, read into their types.
type WebSettings struct {
	// AllowedOrigins are the sites whose pages may call the channel's
	// API; "*" allows any. The hosted page itself is always allowed.
	AllowedOrigins []string
	// EndUserSecret signs the tokens of identified end users; empty when
	// the channel takes only anonymous ones.
	EndUserSecret string
	// AllowAnonymous says whether browsers without a site-signed token
	// get an anonymous end user. Unset, it is true without an
	// end_user_secret and false with one: a site that signs its users
	// wants only them.
	AllowAnonymous bool
	// MessagesPerMinute bounds the messages of one end user.
	MessagesPerMinute int
}

// Web reads the settings of a web channel; values missing or malformed
// (settings written before a field existed) take their defaults.
func (c *Channel) Web() WebSettings {
	w := WebSettings{}
	w.AllowedOrigins, _ = c.Settings["allowed_origins"].([]string)
	w.EndUserSecret, _ = c.Settings["end_user_secret"].(string)
	switch v, _ := c.Settings["allow_anonymous"].(string); v {
	case "true", "false":
		w.AllowAnonymous = v == "true"
	default:
		w.AllowAnonymous = w.EndUserSecret == ""
	}
	perMinute, _ := c.Settings["messages_per_minute"].(string)
	if checkPerMinute(perMinute) != "" {
		perMinute = DefaultWebMessagesPerMinute
	}
	w.MessagesPerMinute, _ = strconv.Atoi(perMinute)
	return w
}

// AllowsOrigin reports whether a page of origin may call the channel's
// API: "*" or the origin listed (scheme and host compare without case,
// as browsers send them lower-cased).
func (w WebSettings) AllowsOrigin(origin string) bool {
	for _, o := range w.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}
