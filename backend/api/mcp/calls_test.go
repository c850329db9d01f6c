package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestIDOfComparesACallWithItsCancellation(t *testing.T) {
	for _, c := range []struct{ call, cancel string }{{`7`, `7`}, {`7`, `7.0`}, {`"a\nb"`, `"a\nb"`}} {
		a, ok1 := idOf(json.RawMessage(c.call))
		b, ok2 := idOf(json.RawMessage(c.cancel))
		if !ok1 || !ok2 || a != b {
			t.Errorf("ids %s and %s: %q %v, %q %v", c.call, c.cancel, a, ok1, b, ok2)
		}
	}
	if a, _ := idOf(json.RawMessage(`7`)); a == mustID(t, `"7"`) {
		t.Error("the number 7 and the string \"7\" are different ids")
	}
	for _, bad := range []string{``, `null`, `{}`, `[1]`} {
		if _, ok := idOf(json.RawMessage(bad)); ok {
			t.Errorf("%q read as an id", bad)
		}
	}
}

func mustID(t *testing.T, raw string) string {
	t.Helper()
	id, ok := idOf(json.RawMessage(raw))
	if !ok {
		t.Fatalf("%s is not an id", raw)
	}
	return id
}

func TestMessagesOfReadsOnlyCallsAndCancellations(t *testing.T) {
	if m := messagesOf([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); m != nil {
		t.Errorf("tools/list decoded: %+v", m)
	}
	m := messagesOf([]byte(` {"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"wf_a","arguments":{}}}`))
	if len(m) != 1 || m[0].Method != "tools/call" || mustID(t, string(m[0].ID)) != "sx" {
		t.Errorf("a call: %+v", m)
	}
	m = messagesOf([]byte(`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}},{"jsonrpc":"2.0","method":"ping","id":4}]`))
	if len(m) != 2 || mustID(t, string(m[0].Params.RequestID)) != "n3" {
		t.Errorf("a batch with a cancellation: %+v", m)
	}
	if m := messagesOf([]byte(`{"method":"tools/call",`)); m != nil {
		t.Errorf("broken JSON decoded: %+v", m)
	}
}

// callRequest is a tools/call as the SDK hands it to the middleware, with
// the headers the edge set.
func callRequest(session, id string) *sdk.CallToolRequest {
	h := http.Header{}
	h.Set(sessionHeader, session)
	h.Set(callHeader, strconv.QuoteToASCII(id))
	return &sdk.CallToolRequest{Extra: &sdk.RequestExtra{Header: h}}
}

func TestCallsCancelRunningAndEarlyCalls(t *testing.T) {
	c := newCalls()
	ctx, done := c.start(context.Background(), callRequest("s1", "n1"))
	if c.cancel(callKey("s1", "n2")) || c.cancel(callKey("s2", "n1")) {
		t.Fatal("another call's or another session's cancellation matched")
	}
	c.cancelled(callKey("s1", "n1"))
	if ctx.Err() == nil {
		t.Fatal("the running call was not cancelled")
	}
	done()
	// A cancellation heard before its call starts here cancels it at once.
	c.cancelled(callKey("s1", "n5"))
	ctx, done = c.start(context.Background(), callRequest("s1", "n5"))
	defer done()
	if ctx.Err() == nil {
		t.Fatal("a call cancelled before it started here runs")
	}
	// A request the edge did not name is left alone.
	ctx, done = c.start(context.Background(), &sdk.CallToolRequest{Extra: &sdk.RequestExtra{Header: http.Header{}}})
	defer done()
	if ctx.Err() != nil || len(c.running) != 0 {
		t.Fatal("an unnamed call was registered")
	}
}

func TestRepliesOnlyTellsAnswersFromRequests(t *testing.T) {
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"answer":"L"}}}`:                     true,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}]`: true,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`:                                                     false,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`:                      false,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":4,"method":"ping"}]`:                    false,
		`[]`: false, ``: false, `{"id":`: false,
	} {
		if got := repliesOnly([]byte(body)); got != want {
			t.Errorf("repliesOnly(%s) = %v, want %v", body, got, want)
		}
	}
}
