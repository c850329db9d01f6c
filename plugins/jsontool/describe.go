package jsontool

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// describe says what kind of value v is, e.g. "an object with 3 keys".
func describe(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return fmt.Sprintf("an object with %d %s", len(x), plural(len(x), "key"))
	case []any:
		return fmt.Sprintf("an array of %d %s", len(x), plural(len(x), "element"))
	case string:
		return fmt.Sprintf("a string of %d characters", len([]rune(x)))
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// position turns a decoding error into words with a line and column.
func position(raw []byte, err error) string {
	var offset int64 = -1
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset - 1 // Offset counts the offending byte
	case errors.As(err, &typ):
		offset = typ.Offset
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if len(strings.TrimSpace(string(raw))) == 0 {
			return "the text is empty"
		}
		return "the text ends before the value is complete"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if offset < 0 {
		return msg
	}
	line, col := lineCol(raw, offset)
	return fmt.Sprintf("%s at line %d, column %d", msg, line, col)
}

func lineCol(raw []byte, offset int64) (int, int) {
	offset = max(0, min(offset, int64(len(raw))))
	line, col := 1, 1
	for _, c := range raw[:offset] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
