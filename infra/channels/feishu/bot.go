package feishu

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// botInfoPath answers the app's bot, whose open_id group mentions name.
const botInfoPath = "/open-apis/bot/v3/info"

// botTTL is how long a bot's open_id is kept; it does not change for an
// app, but a channel's app may.
const botTTL = time.Hour

// botCache holds each app's bot open_id.
type botCache struct {
	mu   sync.Mutex
	bots map[string]cachedBot
}

type cachedBot struct {
	openID string
	until  time.Time
}

func newBotCache() *botCache { return &botCache{bots: map[string]cachedBot{}} }

// botOpenID returns the open_id of the channel's bot, asked of the
// platform once an hour per app.
func (k *Kind) botOpenID(ctx context.Context, c *channel.Channel) (string, error) {
	key := appKey(c)
	k.bots.mu.Lock()
	b, ok := k.bots.bots[key]
	k.bots.mu.Unlock()
	if ok && k.now().Before(b.until) {
		return b.openID, nil
	}
	var out struct {
		Bot struct {
			OpenID string `json:"open_id"`
		} `json:"bot"`
	}
	err := k.authed(ctx, c, func(token string) error {
		return k.call(ctx, http.MethodGet, base(c), botInfoPath, token, nil, &out)
	})
	if err != nil {
		return "", delivery.Once(err)
	}
	k.bots.mu.Lock()
	k.bots.bots[key] = cachedBot{openID: out.Bot.OpenID, until: k.now().Add(botTTL)}
	k.bots.mu.Unlock()
	return out.Bot.OpenID, nil
}
