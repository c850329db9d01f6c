package plugin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuildRequestSplitsArguments(t *testing.T) {
	tool := Tool{Method: "POST", ServerURL: "https://api.example/v1/", Path: "/pets/{petId}/photos/{kind}",
		Params: []Param{
			{Name: "petId", In: InPath, Required: true},
			{Name: "kind", In: InPath, Required: true},
			{Name: "tags", In: InQuery, Explode: true},
			{Name: "ids", In: InQuery, Explode: false},
			{Name: "filter", In: InQuery, Style: "deepObject", Explode: true},
			{Name: "X-Trace", In: InHeader},
			{Name: "session", In: InCookie},
		},
		Body: &Body{MediaType: "application/json", Fields: []string{"name", "size"}},
	}
	args, _ := DecodeArgs(`{"petId":7,"kind":"a b/c","tags":["x","y"],"ids":[1,2],"filter":{"color":"red"},
	  "X-Trace":"t1","session":"s=1","name":"Rex","size":3.5,"ignored":true}`)
	req, err := tool.BuildRequest(args)
	if err != nil {
		t.Fatal(err)
	}
	if req.URL.String() != "https://api.example/v1/pets/7/photos/a%20b%2Fc?filter%5Bcolor%5D=red&ids=1%2C2&tags=x&tags=y" {
		t.Errorf("url = %s", req.URL)
	}
	if req.Header.Get("X-Trace") != "t1" || req.Header.Get("Cookie") != "session=s%3D1" {
		t.Errorf("header = %v", req.Header)
	}
	if string(req.Body) != `{"name":"Rex","size":3.5}` || req.ContentType != "application/json" {
		t.Errorf("body = %s (%s)", req.Body, req.ContentType)
	}
}

func TestBuildRequestBodies(t *testing.T) {
	cases := []struct {
		name string
		body Body
		args string
		want string
	}{
		{"whole body", Body{MediaType: "application/json", Property: "body"}, `{"body":[1,"a"]}`, `[1,"a"]`},
		{"form", Body{MediaType: "application/x-www-form-urlencoded", Fields: []string{"a", "b"}}, `{"a":"x y","b":[1,2]}`, `a=x+y&b=1&b=2`},
		{"text", Body{MediaType: "text/plain", Property: "body"}, `{"body":"hello"}`, `hello`},
		{"optional and absent", Body{MediaType: "application/json", Fields: []string{"a"}}, `{}`, ``},
		{"required and empty", Body{MediaType: "application/json", Fields: []string{"a"}, Required: true}, `{}`, `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool := Tool{Method: "POST", ServerURL: "http://x", Path: "/", Body: &tc.body}
			args, _ := DecodeArgs(tc.args)
			req, err := tool.BuildRequest(args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(req.Body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}
