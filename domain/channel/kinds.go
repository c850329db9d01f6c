package channel

import (
	"encoding/hex"
	"regexp"
)

// Real API base URLs of the platforms; api_base_url defaults to these.
const (
	TelegramAPI = "https://api.telegram.org"
	SlackAPI    = "https://slack.com/api"
	DiscordAPI  = "https://discord.com/api/v10"
	FeishuAPI   = "https://open.feishu.cn"
	LarkAPI     = "https://open.larksuite.com"
	LINEAPI     = "https://api.line.me"
)

// minSigningSecret is the least length of a secret Pergola itself signs
// or verifies with (webhook secret, web end_user_secret).
const minSigningSecret = 16

var telegramSecretToken = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

func checkTelegramSecretToken(v string) string {
	if !telegramSecretToken.MatchString(v) {
		return "must be 1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule for secret_token)"
	}
	return ""
}

func checkEd25519Key(v string) string {
	if b, err := hex.DecodeString(v); err != nil || len(b) != 32 {
		return "must be the application's public key: 64 hexadecimal characters (Discord developer portal, General Information)"
	}
	return ""
}

func apiBase(def string) Field { return Field{Name: "api_base_url", Type: URL, Default: def} }

func secret(name string, required bool) Field {
	return Field{Name: name, Type: Text, Required: required, Secret: true}
}

func feishuFields(base string) []Field {
	return []Field{
		{Name: "app_id", Type: Text, Required: true},
		secret("app_secret", true), secret("verification_token", true), secret("encrypt_key", false),
		apiBase(base),
	}
}

// allKinds lists every kind, sorted.
func allKinds() []Kind {
	return []Kind{KindDiscord, KindFeishu, KindLark, KindLINE, KindSlack, KindTelegram, KindWeb, KindWebhook}
}

// fieldsOf returns a kind's settings, named as the channels issue names
// them; false for an unknown kind.
func fieldsOf(k Kind) ([]Field, bool) {
	switch k {
	case KindWebhook:
		return []Field{
			{Name: "secret", Type: Text, Required: true, Secret: true, MinLen: minSigningSecret},
			{Name: "callback_url", Type: URL}}, true
	case KindTelegram:
		return []Field{secret("bot_token", true),
			{Name: "secret_token", Type: Text, Required: true, Secret: true, Check: checkTelegramSecretToken},
			apiBase(TelegramAPI)}, true
	case KindSlack:
		return []Field{secret("bot_token", true), secret("signing_secret", true), apiBase(SlackAPI)}, true
	case KindDiscord:
		return []Field{{Name: "application_id", Type: Text, Required: true},
			{Name: "public_key", Type: Text, Required: true, Check: checkEd25519Key},
			secret("bot_token", true), apiBase(DiscordAPI)}, true
	case KindFeishu:
		return feishuFields(FeishuAPI), true
	case KindLark:
		return feishuFields(LarkAPI), true
	case KindLINE:
		return []Field{secret("channel_secret", true), secret("channel_access_token", true), apiBase(LINEAPI)}, true
	case KindWeb:
		return []Field{{Name: "allowed_origins", Type: Origins},
			{Name: "end_user_secret", Type: Text, Secret: true, MinLen: minSigningSecret},
			{Name: "allow_anonymous", Type: Text, Check: checkBool},
			{Name: "messages_per_minute", Type: Text, Default: DefaultWebMessagesPerMinute, Check: checkPerMinute}}, true
	}
	return nil, false
}
