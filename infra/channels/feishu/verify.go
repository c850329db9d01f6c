package feishu

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// The headers the platform signs encrypted event requests with.
const (
	SignatureHeader = "X-Lark-Signature"
	TimestampHeader = "X-Lark-Request-Timestamp"
	NonceHeader     = "X-Lark-Request-Nonce"
)

// Tolerance is how far a signed request's timestamp may be from now.
const Tolerance = 5 * time.Minute

// Signature is X-Lark-Signature of body sent at timestamp with nonce:
// the hex SHA-256 of timestamp + nonce + encrypt_key + body.
func Signature(timestamp, nonce, encryptKey string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(timestamp + nonce + encryptKey))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// checkSignature verifies a request of a channel with an encrypt key.
// The platform does not sign the url_verification challenge, so a
// request without the signature headers is let through here and only a
// challenge is accepted from it (see open).
func checkSignature(key string, in appchannel.Inbound, now time.Time) (signed bool, err error) {
	sig, ts := in.Header(SignatureHeader), in.Header(TimestampHeader)
	if sig == "" && ts == "" {
		return false, nil
	}
	want := Signature(ts, in.Header(NonceHeader), key, in.Body)
	if subtle.ConstantTimeCompare([]byte(sig), []byte(want)) != 1 {
		return false, errs.Unauthenticated("%s does not match the request signed with the channel's encrypt_key", SignatureHeader)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false, errs.Unauthenticated("%s must be unix seconds", TimestampHeader)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return false, errs.Unauthenticated("%s is more than 5 minutes from now; the request is stale or replayed", TimestampHeader)
	}
	return true, nil
}

// decrypt opens {"encrypt":"<base64>"} with key = SHA-256(encrypt_key),
// AES-256-CBC, the IV being the first block, PKCS#7 padding.
func decrypt(encryptKey, encrypted string) ([]byte, error) {
	bad := errs.Unauthenticated("the encrypted body does not open with the channel's encrypt_key")
	data, err := base64.StdEncoding.DecodeString(encrypted)
	if err != nil || len(data) < 2*aes.BlockSize || len(data)%aes.BlockSize != 0 {
		return nil, bad
	}
	key := sha256.Sum256([]byte(encryptKey))
	block, _ := aes.NewCipher(key[:])
	plain := make([]byte, len(data)-aes.BlockSize)
	cipher.NewCBCDecrypter(block, data[:aes.BlockSize]).CryptBlocks(plain, data[aes.BlockSize:])
	n := int(plain[len(plain)-1])
	if n == 0 || n > aes.BlockSize || !bytes.Equal(plain[len(plain)-n:], bytes.Repeat([]byte{byte(n)}, n)) {
		return nil, bad
	}
	plain = plain[:len(plain)-n]
	if !json.Valid(plain) {
		return nil, bad
	}
	return plain, nil
}

// sameToken compares a request's token with the channel's
// verification_token in constant time.
func sameToken(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
