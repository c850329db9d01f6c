// Package secret encrypts the secrets Pergola keeps at rest: model API keys,
// plugin credentials, channel tokens.
//
// A Box seals text with AES-256-GCM under one 32-byte key. Sealed text is
// printable and versioned, "v1:" followed by the standard base64 of the
// nonce and the ciphertext, so the format can change without losing what is
// already stored.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length in bytes of a Box key.
const KeySize = 32

const prefixV1 = "v1:"

// ErrDecrypt is returned by Decrypt when sealed text cannot be opened: it is
// malformed, was altered, or was sealed under another key.
var ErrDecrypt = errors.New("secret: cannot decrypt")

// Box seals and opens secrets. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// NewBox returns a Box using key, which must be KeySize bytes; ParseKey
// reads one from configuration.
func NewBox(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secret: key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	return &Box{aead: aead}, nil
}

// Encrypt seals plain with a fresh random nonce, so sealing the same text
// twice gives different results. An empty plain stays empty: "no secret" is
// not worth hiding and needs no key to read. The error is always nil today;
// it is there for sealers that may fail, such as a remote key service.
func (b *Box) Encrypt(plain string) (string, error) {
	if plain == "" {
		return "", nil
	}
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails; it crashes the program instead
	sealed := b.aead.Seal(nonce, nonce, []byte(plain), nil)
	return prefixV1 + base64.StdEncoding.EncodeToString(sealed), nil
}

// Decrypt opens text sealed by Encrypt. An empty text gives an empty
// string. It returns an error matching ErrDecrypt when text is not in a known
// format, was tampered with, or was sealed under another key.
func (b *Box) Decrypt(text string) (string, error) {
	if text == "" {
		return "", nil
	}
	body, ok := strings.CutPrefix(text, prefixV1)
	if !ok {
		return "", fmt.Errorf("%w: unknown format (want a %q prefix)", ErrDecrypt, prefixV1)
	}
	sealed, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		return "", fmt.Errorf("%w: bad base64: %v", ErrDecrypt, err)
	}
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return "", fmt.Errorf("%w: sealed text is too short", ErrDecrypt)
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return "", fmt.Errorf("%w: wrong key or altered data", ErrDecrypt)
	}
	return string(plain), nil
}
