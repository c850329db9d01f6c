package plugin

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestAuthValidate(t *testing.T) {
	cases := []struct {
		name string
		auth Auth
		want string // "" when valid
	}{
		{"none by default", Auth{}, ""},
		{"api key in a header", Auth{Type: AuthAPIKey, Name: "X-Key", Key: "k"}, ""},
		{"api key in the query", Auth{Type: AuthAPIKey, In: KeyInQuery, Name: "key", Key: "k"}, ""},
		{"bearer", Auth{Type: AuthBearer, Token: "t"}, ""},
		{"basic", Auth{Type: AuthBasic, Username: "u"}, ""},
		{"oauth2", Auth{Type: AuthOAuth2Client, TokenURL: "https://id.x/token", ClientID: "c", ClientSecret: "s"}, ""},
		{"unsupported type", Auth{Type: "digest"}, `auth.type: unsupported auth type "digest"`},
		{"api key without key", Auth{Type: AuthAPIKey, Name: "X-Key"}, "auth.key: is required"},
		{"api key without name", Auth{Type: AuthAPIKey, Key: "k"}, "auth.name: must name the header"},
		{"api key in the body", Auth{Type: AuthAPIKey, In: "body", Name: "k", Key: "k"}, "auth.location: must be header or query"},
		{"bearer without token", Auth{Type: AuthBearer}, "auth.token: is required"},
		{"basic without user", Auth{Type: AuthBasic, Password: "p"}, "auth.username: is required"},
		{"oauth2 without token url", Auth{Type: AuthOAuth2Client, ClientID: "c", ClientSecret: "s"}, "auth.token_url: must be the http(s) URL"},
		{"oauth2 without secret", Auth{Type: AuthOAuth2Client, TokenURL: "https://x/t", ClientID: "c"}, "auth.client_secret: is required"},
		{"oauth2 odd client auth", Auth{Type: AuthOAuth2Client, TokenURL: "https://x/t", ClientID: "c", ClientSecret: "s", ClientAuth: "jwt"}, "auth.client_auth"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.auth
			a.Normalize()
			err := a.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestAuthKeepsSecretsOfTheSameType(t *testing.T) {
	prev := Auth{Type: AuthAPIKey, In: KeyInHeader, Name: "X-Key", Key: "old"}
	next := Auth{Type: AuthAPIKey, In: KeyInQuery, Name: "key"}
	next.KeepSecrets(prev)
	if next.Key != "old" {
		t.Errorf("key = %q, want the previous one", next.Key)
	}
	other := Auth{Type: AuthBearer}
	other.KeepSecrets(Auth{Type: AuthBasic, Password: "p"})
	if other.Password != "" || other.Token != "" {
		t.Errorf("secrets crossed types: %+v", other)
	}
	if pub := prev.Public(); pub.Key != "" || !prev.HasSecret() {
		t.Errorf("Public = %+v", pub)
	}
}

func TestToolName(t *testing.T) {
	cases := map[string]string{
		"listPets": "listPets", "get_/pets/{id}": "get_pets_id", "search.items": "search_items",
		"1st": "_1st", "--": "", strings.Repeat("a", 70): strings.Repeat("a", 64),
	}
	for in, want := range cases {
		if got := ToolName(in); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", in, got, want)
		}
	}
}
