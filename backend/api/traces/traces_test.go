package traces

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestTraceIDReadsOpenAIIDs(t *testing.T) {
	good := map[string]int64{
		"7301": 7301, "chatcmpl-7301": 7301, "resp_12_7301": 7301, "resp_12_7301_k3x9": 7301,
	}
	for in, want := range good {
		if got, err := traceID(in); err != nil || got != want {
			t.Errorf("traceID(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "chatcmpl-", "chatcmpl-x1", "resp_7301", "resp_a_b", "-5", "0"} {
		if _, err := traceID(in); !errors.Is(err, errs.ErrInvalid) || !strings.HasPrefix(err.Error(), "id:") {
			t.Errorf("traceID(%q) = %v; want id invalid", in, err)
		}
	}
}
