package wfimport

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow/cozeimport"
)

// bindRequest reads the request: JSON, or multipart/form-data with the
// exported file in the part "file" and the other fields as form values
// (mappings as JSON text).
func bindRequest(c *app.RequestContext) (*request, error) {
	var req request
	if !strings.HasPrefix(string(c.ContentType()), "multipart/form-data") {
		return &req, httpx.BindJSON(c, &req)
	}
	if err := req.bindForm(c); err != nil {
		return nil, err
	}
	return &req, nil
}

// bindForm reads a multipart request.
func (r *request) bindForm(c *app.RequestContext) error {
	var err error
	if r.WorkspaceID, err = formID(c, "workspace_id"); err != nil {
		return err
	}
	if r.AppID, err = formID(c, "app_id"); err != nil {
		return err
	}
	r.Name, r.Description = c.PostForm("name"), c.PostForm("description")
	if v := c.PostForm("allow_partial"); v != "" {
		if r.AllowPartial, err = strconv.ParseBool(v); err != nil {
			return errs.Invalid("allow_partial", "must be true or false; got %q", v)
		}
	}
	if v := c.PostForm("mappings"); v != "" {
		if err := json.Unmarshal([]byte(v), &r.Mappings); err != nil {
			return errs.Invalid("mappings", "must be a JSON object as in the JSON request: %v", err)
		}
	}
	file, err := formFile(c)
	if err != nil {
		return err
	}
	if isZip(file) {
		r.Export = file
	} else {
		r.Canvas = file
	}
	return nil
}

// formFile reads the part "file".
func formFile(c *app.RequestContext) ([]byte, error) {
	fh, err := c.FormFile("file")
	if err != nil {
		return nil, errs.Invalid("file", "is required: the zip, .flow or .json file exported from Coze Studio")
	}
	f, err := fh.Open()
	if err != nil {
		return nil, errs.Invalid("file", "cannot be read: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(f) // the body limit bounds it
	if err != nil {
		return nil, errs.Invalid("file", "cannot be read: %v", err)
	}
	return b, nil
}

func formID(c *app.RequestContext, name string) (httpx.ID, error) {
	v := c.PostForm(name)
	if v == "" {
		return 0, nil
	}
	id, err := httpx.ParseID(name, v)
	return httpx.ID(id), err
}

// isZip reports a zip archive by its signature.
func isZip(b []byte) bool { return bytes.HasPrefix(b, []byte("PK\x03\x04")) }

// export returns the workflows of a zip or manifest import, nil for a
// single canvas. Only one of canvas, export and workflows may be given.
func (r *request) export() ([]cozeimport.ExportWorkflow, error) {
	given := 0
	for _, ok := range []bool{hasCanvas(r.Canvas), len(r.Export) > 0, len(r.Workflows) > 0} {
		if ok {
			given++
		}
	}
	switch {
	case given == 0:
		return nil, errs.Invalid("canvas", "is required: the workflow exported from Coze Studio (or export: a zip of several, or workflows: a manifest)")
	case given > 1:
		return nil, errs.Invalid("canvas", "give one of canvas, export and workflows")
	case len(r.Export) > 0:
		return cozeimport.ReadExport(r.Export)
	case len(r.Workflows) > 0:
		return r.Workflows, cozeimport.CheckExport(r.Workflows)
	}
	return nil, nil
}

func hasCanvas(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}
