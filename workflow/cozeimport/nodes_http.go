package cozeimport

import (
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// httpBody is the body of an HTTP requester node.
type httpBody struct {
	BodyType string `json:"bodyType"`
	BodyData *struct {
		JSON     string `json:"json"`
		RawText  string `json:"rawText"`
		FormData *struct {
			Data []*cozeParam `json:"data"`
		} `json:"formData"`
		FormURLEncoded []*cozeParam `json:"formURLEncoded"`
		Binary         *struct {
			FileURL *blockInput `json:"fileURL"`
		} `json:"binary"`
	} `json:"bodyData"`
}

// httpAuth is the authentication of an HTTP requester node.
type httpAuth struct {
	AuthType string `json:"authType"`
	AuthOpen bool   `json:"authOpen"`
	AuthData struct {
		CustomData struct {
			AddTo string       `json:"addTo"`
			Data  []*cozeParam `json:"data"`
		} `json:"customData"`
		BearerTokenData []*cozeParam `json:"bearerTokenData"`
	} `json:"authData"`
}

// convertHTTP: URL and body templates, headers, query, form, auth.
func convertHTTP(nc *nodeConv) error {
	in := nc.in
	cfg := map[string]any{"method": strings.ToUpper(in.APIInfo.Method)}
	var err error
	if cfg["url"], err = nc.template(in.APIInfo.URL); err != nil {
		return err
	}
	headers, err := nc.httpFields(in.Headers, "h", "headers")
	if err != nil {
		return err
	}
	query, err := nc.httpFields(in.Params, "q", "params")
	if err != nil {
		return err
	}
	if err := nc.httpAuth(headers, query); err != nil {
		return err
	}
	if len(headers) > 0 {
		cfg["headers"] = headers
	}
	if len(query) > 0 {
		cfg["query"] = query
	}
	if err := nc.httpBody(cfg); err != nil {
		return err
	}
	if s := in.Setting; s != nil && (s.Timeout > 0 || s.RetryTimes > 0) {
		nc.node.Settings = &workflow.Settings{TimeoutMS: int(s.Timeout) * 1000, Retries: int(min(s.RetryTimes, 5))}
	}
	return nc.config(cfg)
}

// httpFields turns named values into templates over new inputs.
func (nc *nodeConv) httpFields(params []*cozeParam, prefix, field string) (map[string]string, error) {
	out := map[string]string{}
	for i, p := range params {
		if p == nil {
			continue
		}
		in, err := nc.input(p.Input, fmt.Sprintf("data.inputs.%s[%d]", field, i))
		if err != nil {
			return nil, err
		}
		if s, ok := in.Value.(string); ok && in.HasValue {
			if out[p.Name], err = nc.template(s); err != nil {
				return nil, err
			}
			continue
		}
		name := fmt.Sprintf("%s_%d", prefix, i)
		nc.setInput(name, in)
		out[p.Name] = "{{" + name + "}}"
	}
	return out, nil
}

// httpAuth adds a bearer token or a custom key to the headers or query.
func (nc *nodeConv) httpAuth(headers, query map[string]string) error {
	a := nc.in.Auth
	if a == nil || !a.AuthOpen {
		return nil
	}
	switch a.AuthType {
	case "BEARER_AUTH":
		tok, err := nc.httpFields(a.AuthData.BearerTokenData, "auth", "auth.authData.bearerTokenData")
		if err != nil {
			return err
		}
		for _, v := range tok {
			headers["Authorization"] = "Bearer " + v
		}
	case "CUSTOM_AUTH":
		data := a.AuthData.CustomData.Data
		if len(data) != 2 {
			return unsupported("custom auth needs a key and a value")
		}
		kv, err := nc.httpFields(data, "auth", "auth.authData.customData.data")
		if err != nil {
			return err
		}
		key, value := kv[data[0].Name], kv[data[1].Name]
		if a.AuthData.CustomData.AddTo == "query" {
			query[key] = value
		} else {
			headers[key] = value
		}
	default:
		return unsupported("auth type %q is unknown", a.AuthType)
	}
	return nil
}

// httpBody converts the body by type.
func (nc *nodeConv) httpBody(cfg map[string]any) error {
	b := nc.in.Body
	if b.BodyData == nil && b.BodyType != "" && b.BodyType != "EMPTY" {
		return unsupported("body type %s has no body data", b.BodyType)
	}
	var err error
	switch b.BodyType {
	case "", "EMPTY":
		cfg["body_type"] = "none"
	case "JSON":
		cfg["body_type"] = "json"
		cfg["body"], err = nc.template(b.BodyData.JSON)
	case "RAW_TEXT":
		cfg["body_type"] = "text"
		cfg["body"], err = nc.template(b.BodyData.RawText)
	case "FORM_URLENCODED":
		cfg["body_type"] = "form"
		cfg["form"], err = nc.httpFields(b.BodyData.FormURLEncoded, "f", "body.bodyData.formURLEncoded")
	case "FORM_DATA":
		return nc.multipartBody(cfg)
	case "BINARY":
		return nc.binaryBody(cfg)
	default:
		return unsupported("body type %s is unknown", b.BodyType)
	}
	return err
}

// multipartBody sends form-data; fields holding files (assistType set)
// are sent as the files their URLs name.
func (nc *nodeConv) multipartBody(cfg map[string]any) error {
	var fields []*cozeParam
	if fd := nc.in.Body.BodyData.FormData; fd != nil {
		fields = fd.Data
	}
	form, err := nc.httpFields(fields, "f", "body.bodyData.formData.data")
	if err != nil {
		return err
	}
	var files []string
	for _, p := range fields {
		if p != nil && p.Input != nil && (p.Input.AssistType != 0 || p.Input.Type == "file") {
			files = append(files, p.Name)
		}
	}
	cfg["body_type"], cfg["form"], cfg["files"] = "multipart", form, files
	return nil
}

// binaryBody sends the bytes of the file at the URL fileURL gives.
func (nc *nodeConv) binaryBody(cfg map[string]any) error {
	bin := nc.in.Body.BodyData.Binary
	if bin == nil || bin.FileURL == nil {
		return errs.Invalid(nc.at+".data.inputs.body.bodyData.binary.fileURL", "is required for a BINARY body")
	}
	in, err := nc.input(bin.FileURL, "body.bodyData.binary.fileURL")
	if err != nil {
		return err
	}
	nc.setInput("file_url", in)
	cfg["body_type"], cfg["body"] = "binary", "{{file_url}}"
	return nil
}
