package plugin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Request is the HTTP request of an OpenAPI tool call before auth is
// added: the arguments split back into path, query, header, cookie and
// body.
type Request struct {
	Method      string
	URL         *url.URL
	Header      http.Header
	Body        []byte
	ContentType string
}

// BuildRequest turns checked arguments into the request of t. Arguments
// that are not parameters of t are ignored; a missing path parameter is
// errs.ErrInvalid.
func (t *Tool) BuildRequest(args map[string]any) (*Request, error) {
	path := t.Path
	query := url.Values{}
	header := http.Header{}
	var cookies []string
	for _, p := range t.Params {
		v, ok := args[p.Name]
		if !ok || v == nil {
			if p.In == InPath {
				return nil, &ArgError{Problems: []string{"missing required " + at(p.Name)}}
			}
			continue
		}
		switch p.In {
		case InPath:
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(simpleValue(v, p.Explode)))
		case InQuery:
			addQuery(query, p, v)
		case InHeader:
			header.Set(p.Name, simpleValue(v, p.Explode))
		case InCookie:
			cookies = append(cookies, p.Name+"="+url.QueryEscape(simpleValue(v, false)))
		}
	}
	if len(cookies) > 0 {
		header.Set("Cookie", strings.Join(cookies, "; "))
	}
	u, err := url.Parse(strings.TrimRight(t.ServerURL, "/") + path)
	if err != nil {
		return nil, errs.Invalid("arguments", "the request URL is not valid: %v", err)
	}
	u.RawQuery = mergeQuery(u.Query(), query).Encode()
	req := &Request{Method: t.Method, URL: u, Header: header}
	if t.Body != nil {
		if err := t.encodeBody(req, args); err != nil {
			return nil, err
		}
	}
	return req, nil
}

func mergeQuery(base, more url.Values) url.Values {
	for k, vs := range more {
		base[k] = append(base[k], vs...)
	}
	return base
}

// addQuery serializes a query parameter: form style (exploded by
// default), spaceDelimited, pipeDelimited or deepObject.
func addQuery(q url.Values, p Param, v any) {
	switch x := v.(type) {
	case []any:
		sep := map[string]string{"spaceDelimited": " ", "pipeDelimited": "|"}[p.Style]
		if p.Explode && sep == "" {
			for _, e := range x {
				q.Add(p.Name, scalar(e))
			}
			return
		}
		if sep == "" {
			sep = ","
		}
		q.Add(p.Name, joinScalars(x, sep))
	case map[string]any:
		for _, k := range sortedKeys(x) {
			switch {
			case p.Style == "deepObject":
				q.Add(p.Name+"["+k+"]", scalar(x[k]))
			case p.Explode:
				q.Add(k, scalar(x[k]))
			default:
				q.Add(p.Name, simpleValue(x, false))
				return
			}
		}
	default:
		q.Add(p.Name, scalar(v))
	}
}

// simpleValue serializes in OpenAPI's simple style: arrays and objects as
// comma-separated lists.
func simpleValue(v any, explode bool) string {
	switch x := v.(type) {
	case []any:
		return joinScalars(x, ",")
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			if explode {
				parts = append(parts, k+"="+scalar(x[k]))
			} else {
				parts = append(parts, k, scalar(x[k]))
			}
		}
		return strings.Join(parts, ",")
	}
	return scalar(v)
}

func joinScalars(list []any, sep string) string {
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = scalar(e)
	}
	return strings.Join(parts, sep)
}

// scalar writes a JSON value as parameter text; arrays and objects nested
// deeper than a style can express travel as JSON.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (t *Tool) encodeBody(req *Request, args map[string]any) error {
	value, present := t.bodyValue(args)
	if !present {
		return nil
	}
	req.ContentType = t.Body.MediaType
	switch {
	case isJSONMedia(t.Body.MediaType):
		b, err := json.Marshal(value)
		if err != nil {
			return errs.Invalid("arguments", "the body cannot be encoded as JSON: %v", err)
		}
		req.Body = b
	case t.Body.MediaType == "application/x-www-form-urlencoded":
		form := url.Values{}
		obj, _ := value.(map[string]any)
		for _, k := range sortedKeys(obj) {
			if list, ok := obj[k].([]any); ok {
				for _, e := range list {
					form.Add(k, scalar(e))
				}
				continue
			}
			form.Add(k, scalar(obj[k]))
		}
		req.Body = []byte(form.Encode())
	default:
		req.Body = []byte(scalar(value))
	}
	return nil
}

// bodyValue gathers the body from the arguments; present is false when
// the body is optional and no argument of it was given.
func (t *Tool) bodyValue(args map[string]any) (any, bool) {
	if t.Body.Property != "" {
		v, ok := args[t.Body.Property]
		return v, ok
	}
	obj := map[string]any{}
	for _, f := range t.Body.Fields {
		if v, ok := args[f]; ok {
			obj[f] = v
		}
	}
	return obj, len(obj) > 0 || t.Body.Required
}

// isJSONMedia reports whether a media type is JSON (application/json or
// a +json suffix).
func isJSONMedia(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// IsSupportedMedia reports whether a request body of this media type can
// be sent: JSON, a URL-encoded form, or text.
func IsSupportedMedia(mt string) bool {
	return isJSONMedia(mt) || mt == "application/x-www-form-urlencoded" || strings.HasPrefix(mt, "text/")
}
