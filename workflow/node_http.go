package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// httpKind sends an HTTP request through the guarded egress client.
type httpKind struct{}

type httpConfig struct {
	Method   string            `json:"method,omitempty" jsonschema:"enum=GET,enum=POST,enum=PUT,enum=PATCH,enum=DELETE,enum=HEAD,description=default GET"`
	URL      string            `json:"url" jsonschema:"required,description=an http(s) URL; {{input}} placeholders read the node's inputs (escaped)"`
	Headers  map[string]string `json:"headers,omitempty" jsonschema:"description=header values; templates over the inputs\\, and so are names holding {{…}}"`
	Query    map[string]string `json:"query,omitempty" jsonschema:"description=query parameters; templates over the inputs\\, and so are names holding {{…}}"`
	BodyType string            `json:"body_type,omitempty" jsonschema:"enum=none,enum=json,enum=text,enum=form,enum=multipart,enum=binary,description=none (default); json: the body template\\, or without one input body encoded as JSON; text: the body template; form: the form map URL-encoded; multipart: the form map as multipart/form-data; binary: the bytes of the file at the URL the body template renders"`
	Body     string            `json:"body,omitempty" jsonschema:"description=the body template"`
	Form     map[string]string `json:"form,omitempty" jsonschema:"description=body_type form or multipart: fields; templates over the inputs"`
	Files    []string          `json:"files,omitempty" jsonschema:"description=body_type multipart: the form fields whose value is the URL of a file\\, sent as that file"`
}

func (httpKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "http", Title: "HTTP request", Category: categoryIO,
		Description: "Sends an HTTP request built from templates over the inputs, through the guarded egress client " +
			"(private and loopback addresses are refused unless allowed). A status of 400 or more fails the node. " +
			"Outputs headers as an object of lower-case names (compat coze: the JSON text of the last value of each header). " +
			"The response body is kept up to the engine's limit.",
		ConfigSchema: configSchema(&httpConfig{}),
		Outputs:      httpOutputs}
}

var httpOutputs = []Param{P("status_code", TypeInteger), P("body", TypeString), P("headers", TypeObject)}

// cozeHTTPOutputs are the outputs in a workflow with compat coze, where
// headers is the JSON text Coze Studio outputs.
var cozeHTTPOutputs = []Param{P("status_code", TypeInteger), P("body", TypeString), P("headers", TypeString)}

// httpPlan is a checked HTTP config.
type httpPlan struct {
	method, bodyType          string
	url, body                 *template
	headers, query, form      map[string]*template
	headerKeys, queryKeys, fk []string
	names                     map[string]*template // header and query names that are templates
	files                     []string             // multipart fields sent as the files their URLs name
	limit                     int64
	coze                      bool // headers as Coze's JSON text
}

func (httpKind) check(c *checker, n *Node) *nodeSpec {
	var cfg httpConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	p := &httpPlan{method: strings.ToUpper(cfg.Method), bodyType: cfg.BodyType, limit: c.eng.limits.HTTPBodyBytes, coze: c.coze}
	if p.method == "" {
		p.method = http.MethodGet
	}
	if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}, p.method) {
		c.fail(nodeField(n, "config.method"), "must be GET, POST, PUT, PATCH, DELETE or HEAD; got %q", cfg.Method)
	}
	if !slices.Contains([]string{"", "none", "json", "text", "form", "multipart", "binary"}, cfg.BodyType) {
		c.fail(nodeField(n, "config.body_type"), "must be none, json, text, form, multipart or binary; got %q", cfg.BodyType)
	}
	for i, f := range cfg.Files {
		if _, ok := cfg.Form[f]; !ok || cfg.BodyType != "multipart" {
			c.fail(nodeField(n, fmt.Sprintf("config.files[%d]", i)), "names no form field of a multipart body: %q", f)
		}
	}
	p.files = cfg.Files
	tmpl := func(field, s string) *template {
		t, err := checkTemplate(s, n.Inputs)
		if err != nil {
			c.fail(nodeField(n, "config."+field), "%v", err)
		}
		return t
	}
	if p.url = tmpl("url", cfg.URL); cfg.URL == "" {
		c.fail(nodeField(n, "config.url"), "is required")
	}
	p.body = tmpl("body", cfg.Body)
	p.headers, p.headerKeys = tmplMap(cfg.Headers, func(k, v string) *template { return tmpl("headers."+k, v) })
	p.query, p.queryKeys = tmplMap(cfg.Query, func(k, v string) *template { return tmpl("query."+k, v) })
	p.form, p.fk = tmplMap(cfg.Form, func(k, v string) *template { return tmpl("form."+k, v) })
	p.names = nameTemplates(p.headerKeys, p.queryKeys, func(k string) *template { return tmpl("headers/query name "+k, k) })
	outputs := httpOutputs
	if c.coze {
		outputs = cozeHTTPOutputs
	}
	return &nodeSpec{outputs: outputs, blocking: true, runner: p}
}

// nameTemplates parses the header and query names that hold placeholders
// (a custom auth key read from an input, say).
func nameTemplates(headers, query []string, parse func(k string) *template) map[string]*template {
	out := map[string]*template{}
	for _, k := range append(slices.Clone(headers), query...) {
		if strings.Contains(k, "{{") {
			out[k] = parse(k)
		}
	}
	return out
}

// name renders a header or query name.
func (p *httpPlan) name(k string, in map[string]any) string {
	if t := p.names[k]; t != nil {
		return p.names[k].render(in)
	}
	return k
}

func tmplMap(m map[string]string, parse func(k, v string) *template) (map[string]*template, []string) {
	out := make(map[string]*template, len(m))
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		out[k] = parse(k, m[k])
	}
	return out, keys
}

func (p *httpPlan) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	doer := x.rc.eng.ports.HTTP
	if doer == nil {
		return nil, permanent(errors.New("HTTP requests are not available in this process"))
	}
	req, err := p.request(withFileNames(ctx, &x.rc.files), doer, in)
	if err != nil {
		return nil, permanent(err)
	}
	resp, err := doer.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, p.limit))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the response: %w", req.Method, req.URL.Redacted(), err)
	}
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("%s %s answered %s: %s", req.Method, req.URL.Redacted(), resp.Status, preview(string(body), 200))
	}
	return map[string]any{"status_code": int64(resp.StatusCode), "body": string(body), "headers": p.headersOut(resp.Header)}, nil
}

// headersOut is the headers output: an object of the first value of each
// header under its lower-case name; in a workflow with compat coze, as
// Coze Studio outputs it, the JSON text of an object of the last value of
// each header under its canonical name (Content-Type).
func (p *httpPlan) headersOut(h http.Header) any {
	if !p.coze {
		out := make(map[string]any, len(h))
		for k := range h {
			out[strings.ToLower(k)] = h.Get(k)
		}
		return out
	}
	last := make(map[string]string, len(h))
	for k, vs := range h {
		last[http.CanonicalHeaderKey(k)] = ""
		if len(vs) > 0 {
			last[http.CanonicalHeaderKey(k)] = vs[len(vs)-1]
		}
	}
	b, _ := json.Marshal(last)
	return string(b)
}

// request builds the request.
func (p *httpPlan) request(ctx context.Context, doer HTTPDoer, in map[string]any) (*http.Request, error) {
	raw := strings.TrimSpace(p.renderURL(in))
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("url %q is not an http(s) URL", raw)
	}
	q := u.Query()
	for _, k := range p.queryKeys {
		q.Set(p.name(k, in), p.query[k].render(in))
	}
	u.RawQuery = q.Encode()
	body, ctype, err := p.encodeBody(ctx, doer, in)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, p.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for _, k := range p.headerKeys {
		req.Header.Set(p.name(k, in), p.headers[k].render(in))
	}
	return req, nil
}

// renderURL fills the URL's placeholders, escaped as path segments except
// one that starts the URL (a base URL from an input).
func (p *httpPlan) renderURL(in map[string]any) string {
	var b strings.Builder
	for i, part := range p.url.parts {
		if part.path == nil {
			b.WriteString(part.text)
			continue
		}
		v, _ := valueAt(in[part.path[0]], part.path[1:])
		if i == 0 {
			b.WriteString(text(v))
		} else {
			b.WriteString(url.PathEscape(text(v)))
		}
	}
	return b.String()
}

func (p *httpPlan) encodeBody(ctx context.Context, doer HTTPDoer, in map[string]any) (io.Reader, string, error) {
	switch p.bodyType {
	case "multipart":
		return p.multipart(ctx, doer, in)
	case "binary":
		f, err := fetchFile(ctx, doer, strings.TrimSpace(p.body.render(in)), p.limit)
		if err != nil {
			return nil, "", err
		}
		return bytes.NewReader(f.data), f.contentType, nil
	case "json":
		if len(p.body.parts) > 0 {
			s := p.body.render(in)
			if !json.Valid([]byte(s)) {
				return nil, "", fmt.Errorf("the JSON body is not valid JSON: %s", preview(s, 80))
			}
			return strings.NewReader(s), "application/json", nil
		}
		b, err := json.Marshal(in["body"])
		return strings.NewReader(string(b)), "application/json", err
	case "text":
		return strings.NewReader(p.body.render(in)), "text/plain; charset=utf-8", nil
	case "form":
		form := url.Values{}
		for _, k := range p.fk {
			form.Set(k, p.form[k].render(in))
		}
		return strings.NewReader(form.Encode()), "application/x-www-form-urlencoded", nil
	}
	return nil, "", nil
}
