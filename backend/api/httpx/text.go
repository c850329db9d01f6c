package httpx

import (
	"strconv"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// CheckJSONText refuses a JSON body that is not valid UTF-8 or that
// escapes half of a UTF-16 surrogate pair (such as "\ud800" alone).
// encoding/json would silently store either as U+FFFD, losing what the
// client sent; the error (ErrInvalid) names the byte offset instead.
func CheckJSONText(body []byte) error {
	if !utf8.Valid(body) {
		return errs.Invalid("body", "is not valid UTF-8 (first bad byte at offset %d); send text encoded as UTF-8", firstInvalid(body))
	}
	if at := loneSurrogate(body); at >= 0 {
		return errs.Invalid("body", "has a lone UTF-16 surrogate escape at byte %d (\\ud800-\\udfff must come in high-low pairs)", at)
	}
	return nil
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// loneSurrogate returns the offset of the first \uXXXX escape, inside a
// JSON string, of a surrogate that is not part of a high-low pair, or -1.
func loneSurrogate(b []byte) int {
	inString := false
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			inString = !inString
		case !inString || b[i] != '\\':
		case i+1 < len(b) && b[i+1] == 'u':
			n, ok := surrogateAt(b, i)
			if !ok {
				return i
			}
			i += n - 1
		default:
			i++ // any other escape: skip the escaped byte
		}
	}
	return -1
}

// surrogateAt reads the \uXXXX escape at b[i:] and reports how many bytes
// it (with its low half, for a high surrogate) takes, and whether it is
// anything but a lone surrogate.
func surrogateAt(b []byte, i int) (int, bool) {
	r := hex4(b, i+2)
	switch {
	case r < 0xd800 || r > 0xdfff:
		return 6, true // not a surrogate, or not hex: the decoder judges it
	case r >= 0xdc00:
		return 6, false // a low half with no high half before it
	}
	if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
		if low := hex4(b, i+8); low >= 0xdc00 && low <= 0xdfff {
			return 12, true
		}
	}
	return 6, false
}

// hex4 parses 4 hex digits at b[at:], or returns -1.
func hex4(b []byte, at int) int {
	if at+4 > len(b) {
		return -1
	}
	v, err := strconv.ParseUint(string(b[at:at+4]), 16, 32)
	if err != nil {
		return -1
	}
	return int(v)
}
