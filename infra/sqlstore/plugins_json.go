package sqlstore

import (
	"encoding/json"
	"fmt"

	"github.com/pergola-ai/pergola/domain/plugin"
)

// specDoc is a plugin spec as stored in plugins.draft_spec and
// plugin_versions.spec (the source document has a column of its own). Its
// JSON names are the storage format, apart from the domain's field names.
type specDoc struct {
	ServerURL string    `json:"server_url,omitempty"`
	Transport string    `json:"transport,omitempty"`
	Command   string    `json:"command,omitempty"`
	Args      []string  `json:"args,omitempty"`
	Tools     []toolDoc `json:"tools"`
}

type toolDoc struct {
	Name        string         `json:"name"`
	OperationID string         `json:"operation_id,omitempty"`
	Description string         `json:"description,omitempty"`
	Schema      map[string]any `json:"schema,omitempty"`
	Method      string         `json:"method,omitempty"`
	ServerURL   string         `json:"server_url,omitempty"`
	Path        string         `json:"path,omitempty"`
	Params      []paramDoc     `json:"params,omitempty"`
	Body        *bodyDoc       `json:"body,omitempty"`
}

type paramDoc struct {
	Name     string `json:"name"`
	In       string `json:"in"`
	Required bool   `json:"required,omitempty"`
	Explode  bool   `json:"explode,omitempty"`
	Style    string `json:"style,omitempty"`
}

type bodyDoc struct {
	MediaType string   `json:"media_type"`
	Required  bool     `json:"required,omitempty"`
	Property  string   `json:"property,omitempty"`
	Fields    []string `json:"fields,omitempty"`
}

func encodeSpec(s *plugin.Spec) (string, error) {
	d := specDoc{ServerURL: s.ServerURL, Transport: s.Transport, Command: s.Command, Args: s.Args, Tools: make([]toolDoc, len(s.Tools))}
	for i, t := range s.Tools {
		td := toolDoc{Name: t.Name, OperationID: t.OperationID, Description: t.Description, Schema: t.Schema,
			Method: t.Method, ServerURL: t.ServerURL, Path: t.Path}
		for _, p := range t.Params {
			td.Params = append(td.Params, paramDoc{Name: p.Name, In: string(p.In), Required: p.Required, Explode: p.Explode, Style: p.Style})
		}
		if b := t.Body; b != nil {
			td.Body = &bodyDoc{MediaType: b.MediaType, Required: b.Required, Property: b.Property, Fields: b.Fields}
		}
		d.Tools[i] = td
	}
	b, err := json.Marshal(d)
	return string(b), err
}

func decodeSpec(raw, source string) (plugin.Spec, error) {
	var d specDoc
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return plugin.Spec{}, err
	}
	s := plugin.Spec{Source: source, ServerURL: d.ServerURL, Transport: d.Transport, Command: d.Command, Args: d.Args, Tools: make([]plugin.Tool, len(d.Tools))}
	for i, td := range d.Tools {
		t := plugin.Tool{Name: td.Name, OperationID: td.OperationID, Description: td.Description, Schema: td.Schema,
			Method: td.Method, ServerURL: td.ServerURL, Path: td.Path}
		for _, p := range td.Params {
			t.Params = append(t.Params, plugin.Param{Name: p.Name, In: plugin.Location(p.In), Required: p.Required, Explode: p.Explode, Style: p.Style})
		}
		if b := td.Body; b != nil {
			t.Body = &plugin.Body{MediaType: b.MediaType, Required: b.Required, Property: b.Property, Fields: b.Fields}
		}
		s.Tools[i] = t
	}
	return s, nil
}

// authDoc is a plugin's auth as stored, sealed as a whole, in plugins.auth,
// with the environment of a stdio MCP server, whose values are secrets too.
type authDoc struct {
	Env          map[string]string `json:"env,omitempty"`
	Type         string            `json:"type"`
	In           string            `json:"in,omitempty"`
	Name         string            `json:"name,omitempty"`
	Key          string            `json:"key,omitempty"`
	Token        string            `json:"token,omitempty"`
	Username     string            `json:"username,omitempty"`
	Password     string            `json:"password,omitempty"`
	TokenURL     string            `json:"token_url,omitempty"`
	ClientID     string            `json:"client_id,omitempty"`
	ClientSecret string            `json:"client_secret,omitempty"`
	Scopes       []string          `json:"scopes,omitempty"`
	ClientAuth   string            `json:"client_auth,omitempty"`
}

// sealAuth encodes and encrypts an auth and an environment; no auth and
// no environment is stored as "".
func (db *DB) sealAuth(a plugin.Auth, env map[string]string) (string, error) {
	if (a.Type == "" || a.Type == plugin.AuthNone) && len(env) == 0 {
		return "", nil
	}
	if a.Type == "" {
		a.Type = plugin.AuthNone
	}
	b, err := json.Marshal(authDoc{Env: env, Type: string(a.Type), In: a.In, Name: a.Name, Key: a.Key, Token: a.Token,
		Username: a.Username, Password: a.Password, TokenURL: a.TokenURL, ClientID: a.ClientID,
		ClientSecret: a.ClientSecret, Scopes: a.Scopes, ClientAuth: a.ClientAuth})
	if err != nil {
		return "", err
	}
	if db.cipher == nil {
		return "", errNoCipher
	}
	return db.cipher.Encrypt(string(b))
}

// openAuth decrypts and decodes a stored auth and environment.
func (db *DB) openAuth(sealed string) (plugin.Auth, map[string]string, error) {
	if sealed == "" {
		return plugin.Auth{Type: plugin.AuthNone}, nil, nil
	}
	if db.cipher == nil {
		return plugin.Auth{}, nil, errNoCipher
	}
	plain, err := db.cipher.Decrypt(sealed)
	if err != nil {
		return plugin.Auth{}, nil, fmt.Errorf("open auth: %w", err)
	}
	var d authDoc
	if err := json.Unmarshal([]byte(plain), &d); err != nil {
		return plugin.Auth{}, nil, fmt.Errorf("decode auth: %w", err)
	}
	return plugin.Auth{Type: plugin.AuthType(d.Type), In: d.In, Name: d.Name, Key: d.Key, Token: d.Token,
		Username: d.Username, Password: d.Password, TokenURL: d.TokenURL, ClientID: d.ClientID,
		ClientSecret: d.ClientSecret, Scopes: d.Scopes, ClientAuth: d.ClientAuth}, d.Env, nil
}
