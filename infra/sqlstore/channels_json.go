package sqlstore

import (
	"encoding/json"
	"fmt"

	"github.com/pergola-ai/pergola/domain/channel"
)

// channelToRow encodes a channel, splitting its settings into plain JSON
// and the sealed JSON of the secret ones.
func (db *DB) channelToRow(c *channel.Channel) (*channelRow, error) {
	spec, ok := channel.SpecOf(c.Kind)
	if !ok {
		return nil, fmt.Errorf("channel %d: unknown kind %q", c.ID, c.Kind)
	}
	plain, secrets := map[string]any{}, map[string]string{}
	for k, v := range c.Settings {
		if f, ok := spec.Field(k); ok && f.Secret {
			secrets[k], _ = v.(string)
			continue
		}
		plain[k] = v
	}
	settings, err := json.Marshal(plain)
	if err != nil {
		return nil, fmt.Errorf("channel %d settings: %w", c.ID, err)
	}
	sealed, err := db.sealSecrets(secrets)
	if err != nil {
		return nil, fmt.Errorf("channel %d secrets: %w", c.ID, err)
	}
	return &channelRow{ID: c.ID, BotID: c.BotID, WorkspaceID: c.WorkspaceID, Kind: string(c.Kind), Name: c.Name,
		Status: string(c.Status), StatusDetail: c.StatusDetail, Settings: string(settings), Secrets: sealed,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}, nil
}

// sealSecrets encrypts the secret settings as one JSON object; none is "".
func (db *DB) sealSecrets(secrets map[string]string) (string, error) {
	if len(secrets) == 0 {
		return "", nil
	}
	if db.cipher == nil {
		return "", errNoCipher
	}
	b, err := json.Marshal(secrets)
	if err != nil {
		return "", err
	}
	return db.cipher.Encrypt(string(b))
}

// channelFromRow decodes a row, opening its secrets.
func (db *DB) channelFromRow(r *channelRow) (*channel.Channel, error) {
	c := &channel.Channel{ID: r.ID, BotID: r.BotID, WorkspaceID: r.WorkspaceID, Kind: channel.Kind(r.Kind), Name: r.Name,
		Status: channel.Status(r.Status), StatusDetail: r.StatusDetail, Settings: channel.Settings{},
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	var plain map[string]any
	if err := json.Unmarshal([]byte(r.Settings), &plain); err != nil {
		return nil, fmt.Errorf("sqlstore: channel %d settings: %w", r.ID, err)
	}
	for k, v := range plain {
		c.Settings[k] = settingValue(v)
	}
	secrets, err := db.openSecrets(r.Secrets)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: channel %d secrets: %w", r.ID, err)
	}
	for k, v := range secrets {
		c.Settings[k] = v
	}
	return c, nil
}

// settingValue turns a decoded JSON list into []string, the type list
// settings have.
func settingValue(v any) any {
	items, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it.(string)
	}
	return out
}

func (db *DB) openSecrets(sealed string) (map[string]string, error) {
	if sealed == "" {
		return nil, nil
	}
	if db.cipher == nil {
		return nil, errNoCipher
	}
	plain, err := db.cipher.Decrypt(sealed)
	if err != nil {
		return nil, err
	}
	var out map[string]string
	return out, json.Unmarshal([]byte(plain), &out)
}
