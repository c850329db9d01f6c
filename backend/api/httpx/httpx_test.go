package httpx

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestClassifyMapsEveryErrorOfTheVocabulary(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   int
	}{
		{errs.Invalid("name", "is required"), 400, CodeInvalid},
		{fmt.Errorf("login: %w", errs.Unauthenticated("token expired")), 401, CodeUnauthenticated},
		{errs.Forbidden("not a member"), 403, CodeForbidden},
		{errs.NotFound("bot", "7"), 404, CodeNotFound},
		{errs.Conflict("taken"), 409, CodeConflict},
		{fmt.Errorf("x: %w", errs.ErrRateLimited), 429, CodeRateLimited},
		{fmt.Errorf("x: %w", errs.ErrUnavailable), 503, CodeUnavailable},
	}
	for _, tc := range cases {
		status, code, msg := Classify(tc.err)
		if status != tc.status || code != tc.code || msg != tc.err.Error() {
			t.Errorf("%v -> %d %d %q; want %d %d", tc.err, status, code, msg, tc.status, tc.code)
		}
	}
	status, code, msg := Classify(errors.New("decode row of 10.0.0.3: unexpected column"))
	if status != 500 || code != CodeInternal || strings.Contains(msg, "10.0.0.3") {
		t.Fatalf("internal error leaks or misclassified: %d %d %q", status, code, msg)
	}
}

func TestIDTravelsAsString(t *testing.T) {
	b, _ := json.Marshal(struct {
		ID ID `json:"id"`
	}{ID: 7390000000000000001})
	if string(b) != `{"id":"7390000000000000001"}` {
		t.Fatalf("marshal = %s", b)
	}
	var v struct {
		A ID `json:"a"`
		B ID `json:"b"`
	}
	if err := json.Unmarshal([]byte(`{"a":"12","b":34}`), &v); err != nil || v.A != 12 || v.B != 34 {
		t.Fatalf("unmarshal = %+v %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"a":"x1"}`), &v); err == nil {
		t.Fatal("non-numeric id accepted")
	}
}

func TestBindJSONNamesTheField(t *testing.T) {
	type req struct {
		Name  string   `json:"name"`
		Count int      `json:"count"`
		Tags  []string `json:"tags"`
	}
	cases := map[string]string{
		`{"name": 5}`:       "name: must be a string",
		`{"count": "many"}`: "count: must be an integer",
		`{"tags": "a"}`:     "tags: must be an array",
		`{"name": `:         "body: is not valid JSON",
	}
	for body, want := range cases {
		c := app.NewContext(0)
		c.Request.SetBody([]byte(body))
		var r req
		err := BindJSON(c, &r)
		if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s -> %v; want %q", body, err, want)
		}
	}
	c := app.NewContext(0)
	var r req
	if err := BindJSON(c, &r); err != nil {
		t.Fatalf("empty body: %v", err)
	}
}

func TestParseID(t *testing.T) {
	if _, err := ParseID("bot_id", "abc"); err == nil || !strings.Contains(err.Error(), "bot_id") {
		t.Fatalf("got %v", err)
	}
	if _, err := ParseID("bot_id", "-3"); err == nil {
		t.Fatal("negative id accepted")
	}
	if n, err := ParseID("bot_id", "42"); err != nil || n != 42 {
		t.Fatalf("got %d %v", n, err)
	}
}
