package main

import (
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	webchatapp "github.com/pergola-ai/pergola/application/webchat"
	"github.com/pergola-ai/pergola/backend/api/middleware"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// webChatKeyInfo names what the derived key is for: a key derived for
// something else from the same secret key is another key.
const webChatKeyInfo = "pergola web chat: anonymous end-user tokens v1"

// newWebChat wires the hosted web chat over the channels, their events,
// the published bots and the chat runtime, limited through the shared
// limiter (Redis when configured, so limits hold across processes).
// Without a signing key the web chat is not served (nil: its routes
// answer 503) and the reason is logged.
func newWebChat(db *sqlstore.DB, bots *botapp.Service, chats *chatapp.Service, limiter middleware.Limiter, cfg config.Config, log *slog.Logger) *webchatapp.Service {
	key, err := webChatKey(cfg)
	if err != nil {
		log.Error("web chat is not served", "err", err)
		return nil
	}
	return webchatapp.New(webchatapp.Deps{Channels: db.Channels(), Events: db.ChannelEvents(), Bots: bots, Chats: chats,
		Messages: db.Messages(), Limiter: limiter, AnonKey: key, Limits: textLimits(cfg), Log: log})
}

// webChatKey derives the key that signs anonymous end users' tokens from
// the secret key (PERGOLA_SECRET_KEY, or the one secretBox generated
// into the data dir), so that every process of a deployment derives the
// same key and a new secret key starts every anonymous end user afresh.
func webChatKey(cfg config.Config) ([]byte, error) {
	raw := cfg.SecretKey
	if raw == "" {
		b, err := os.ReadFile(filepath.Join(cfg.DataDir, "secret.key"))
		if err != nil {
			return nil, fmt.Errorf("PERGOLA_DATA_DIR: read the secret key: %w", err)
		}
		raw = strings.TrimSpace(string(b))
	}
	master, err := secret.ParseKey(raw)
	if err != nil {
		return nil, fmt.Errorf("PERGOLA_SECRET_KEY: %w", err)
	}
	return hkdf.Key(sha256.New, master, nil, webChatKeyInfo, 32)
}
