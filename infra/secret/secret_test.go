package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func newTestBox(t *testing.T) *Box {
	t.Helper()
	key, err := ParseKey(GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	b := newTestBox(t)
	for _, plain := range []string{"sk-abc", "x", "unicode ✓ ключ", strings.Repeat("long ", 1000)} {
		sealed, err := b.Encrypt(plain)
		if err != nil {
			t.Fatalf("Encrypt(%q): %v", plain, err)
		}
		if !strings.HasPrefix(sealed, "v1:") || (len(plain) > 4 && strings.Contains(sealed, plain)) {
			t.Errorf("Encrypt(%q) = %q, want v1: text that hides the plaintext", plain, sealed)
		}
		got, err := b.Decrypt(sealed)
		if err != nil || got != plain {
			t.Errorf("Decrypt(Encrypt(%q)) = %q, %v", plain, got, err)
		}
	}
}

func TestEncryptIsRandomized(t *testing.T) {
	b := newTestBox(t)
	s1, _ := b.Encrypt("same")
	s2, _ := b.Encrypt("same")
	if s1 == s2 {
		t.Errorf("two encryptions of the same text are equal: %q", s1)
	}
}

func TestEmptyStaysEmpty(t *testing.T) {
	b := newTestBox(t)
	sealed, err := b.Encrypt("")
	if err != nil || sealed != "" {
		t.Errorf("Encrypt(\"\") = %q, %v; want \"\", nil", sealed, err)
	}
	plain, err := b.Decrypt("")
	if err != nil || plain != "" {
		t.Errorf("Decrypt(\"\") = %q, %v; want \"\", nil", plain, err)
	}
}

func TestDecryptRejects(t *testing.T) {
	b := newTestBox(t)
	sealed, _ := b.Encrypt("sk-secret")
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, "v1:"))
	flipped := bytes.Clone(raw)
	flipped[len(flipped)-1] ^= 1
	other := newTestBox(t)

	tests := []struct {
		name string
		box  *Box
		text string
	}{
		{"tampered ciphertext", b, "v1:" + base64.StdEncoding.EncodeToString(flipped)},
		{"wrong key", other, sealed},
		{"unknown version", b, "v2:" + strings.TrimPrefix(sealed, "v1:")},
		{"plaintext", b, "sk-secret"},
		{"bad base64", b, "v1:!!!"},
		{"too short", b, "v1:" + base64.StdEncoding.EncodeToString(raw[:10])},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.box.Decrypt(tc.text)
			if !errors.Is(err, ErrDecrypt) {
				t.Fatalf("Decrypt = %q, %v; want an error matching ErrDecrypt", got, err)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("error %q leaks the plaintext", err)
			}
		})
	}
}

func TestNewBoxKeySize(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33, 64} {
		if _, err := NewBox(make([]byte, n)); err == nil {
			t.Errorf("NewBox with a %d-byte key: want an error", n)
		}
	}
}

func TestParseKey(t *testing.T) {
	key := bytes.Repeat([]byte{0xfb, 0xff, 0x3e}, 11)[:KeySize] // bytes that differ between the std and url alphabets
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{"hex", hex.EncodeToString(key), ""},
		{"hex upper case with spaces", "  " + strings.ToUpper(hex.EncodeToString(key)) + "\n", ""},
		{"base64 std padded", base64.StdEncoding.EncodeToString(key), ""},
		{"base64 std raw", base64.RawStdEncoding.EncodeToString(key), ""},
		{"base64 url padded", base64.URLEncoding.EncodeToString(key), ""},
		{"base64 url raw", base64.RawURLEncoding.EncodeToString(key), ""},
		{"empty", "", "key is empty"},
		{"short base64", base64.StdEncoding.EncodeToString(key[:16]), "decodes from base64 to 16 bytes"},
		{"short hex", hex.EncodeToString(key[:16]), "hex key has 32 characters, want 64"},
		{"garbage", "not a key at all!", "neither 64 hex characters nor base64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKey(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseKey(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || !bytes.Equal(got, key) {
				t.Fatalf("ParseKey(%q) = %x, %v; want %x", tc.in, got, err, key)
			}
		})
	}
}

func TestGenerateKey(t *testing.T) {
	k1, k2 := GenerateKey(), GenerateKey()
	if k1 == k2 {
		t.Fatal("GenerateKey returned the same key twice")
	}
	if _, err := ParseKey(k1); err != nil {
		t.Fatalf("ParseKey(GenerateKey()): %v", err)
	}
}
