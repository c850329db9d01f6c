package secret

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// ParseKey reads a Box key written as 64 hex characters or as base64
// (standard or URL alphabet, padded or not) of 32 bytes. Surrounding spaces
// are ignored. The error says what was wrong without echoing the key.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("secret: key is empty; want %d bytes as %d hex characters or base64 (generate one with GenerateKey)", KeySize, 2*KeySize)
	}
	if len(s) == 2*KeySize {
		if key, err := hex.DecodeString(s); err == nil {
			return key, nil
		}
	}
	decoded := -1
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(s); err == nil {
			if len(key) == KeySize {
				return key, nil
			}
			decoded = len(key)
		}
	}
	if _, err := hex.DecodeString(s); err == nil {
		return nil, fmt.Errorf("secret: hex key has %d characters, want %d", len(s), 2*KeySize)
	}
	if decoded >= 0 {
		return nil, fmt.Errorf("secret: key decodes from base64 to %d bytes, want %d", decoded, KeySize)
	}
	return nil, fmt.Errorf("secret: key of %d characters is neither %d hex characters nor base64 of %d bytes", len(s), 2*KeySize, KeySize)
}

// GenerateKey returns a fresh random key as 64 hex characters, the form
// ParseKey reads.
func GenerateKey() string {
	key := make([]byte, KeySize)
	_, _ = rand.Read(key) // crypto/rand.Read never fails; it crashes the program instead
	return hex.EncodeToString(key)
}
