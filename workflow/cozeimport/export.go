package cozeimport

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Limits of an export: how many workflows, and how many bytes a canvas
// and the whole export may hold once unpacked.
const (
	MaxExportWorkflows   = 50
	MaxExportCanvasBytes = 4 << 20
	MaxExportBytes       = 32 << 20
)

// ExportWorkflow is one workflow of an export: its Coze Studio id, the
// name it gets in Pergola, where it came from and its canvas.
type ExportWorkflow struct {
	ID     string          `json:"id"`
	Name   string          `json:"name,omitempty"`
	File   string          `json:"file,omitempty"`
	Canvas json.RawMessage `json:"canvas"`
}

// manifestFile in an export zip may name the workflows of the other files,
// relative to its folder: {"workflows": [{"id", "name", "file"}]}.
const manifestFile = "manifest.json"

// idInNameRE finds the Coze workflow id in a file name: the digits that
// end it (coze-workflow-7498321598097768457.flow, 7498321598097768457.json).
var idInNameRE = regexp.MustCompile(`(\d+)$`)

// ReadExport reads a zip of Coze Studio workflows: .flow files as Coze
// Studio's editor exports them (their id inside), and canvas .json files
// named by their workflow id; a manifest.json (one, in any folder) may give
// ids and names. Hidden files and folders (__MACOSX) are ignored.
func ReadExport(data []byte) ([]ExportWorkflow, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, errs.Invalid("file", "is not a zip archive: %v", err)
	}
	var out []ExportWorkflow
	var manifest []byte
	manifestDir, total := "", 0
	for _, f := range zr.File {
		ext := path.Ext(f.Name)
		if f.FileInfo().IsDir() || hidden(f.Name) || (ext != ".json" && ext != ".flow") {
			continue
		}
		b, err := readEntry(f, &total)
		if err != nil {
			return nil, err
		}
		switch {
		case path.Base(f.Name) == manifestFile:
			if manifest != nil {
				return nil, errs.Invalid("file", "holds two %s files; give one", manifestFile)
			}
			manifest, manifestDir = b, path.Dir(f.Name)
		default:
			out = append(out, exportEntry(f.Name, b))
		}
		if len(out) > MaxExportWorkflows {
			return nil, errs.Invalid("file", "holds more than %d workflows", MaxExportWorkflows)
		}
	}
	if err := applyManifest(out, manifest, manifestDir); err != nil {
		return nil, err
	}
	return out, CheckExport(out)
}

// hidden reports files that are not workflows: dot files and macOS's
// resource folders.
func hidden(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || part == "__MACOSX" {
			return true
		}
	}
	return false
}

// readEntry reads one file of the zip within the limits.
func readEntry(f *zip.File, total *int) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, errs.Invalid("file", "%s cannot be read: %v", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxExportCanvasBytes+1))
	if err != nil {
		return nil, errs.Invalid("file", "%s cannot be read: %v", f.Name, err)
	}
	if len(b) > MaxExportCanvasBytes {
		return nil, errs.Invalid("file", "%s is larger than %d bytes", f.Name, MaxExportCanvasBytes)
	}
	if *total += len(b); *total > MaxExportBytes {
		return nil, errs.Invalid("file", "unpacks to more than %d bytes", MaxExportBytes)
	}
	return b, nil
}

// exportEntry makes a workflow of a file: the id a .flow file holds, else
// the digits ending the file name; the name from the file name.
func exportEntry(name string, b []byte) ExportWorkflow {
	canvas, id := canvasOf(b)
	base := strings.TrimSuffix(path.Base(name), path.Ext(name))
	if id == "" {
		id = idInNameRE.FindString(base)
	}
	return ExportWorkflow{ID: id, Name: WorkflowName(base), File: name, Canvas: canvas}
}

// applyManifest sets the ids and names a manifest gives the files (named
// relative to the manifest's folder).
func applyManifest(ws []ExportWorkflow, manifest []byte, dir string) error {
	if manifest == nil {
		return nil
	}
	var m struct {
		Workflows []struct {
			ID   flexString `json:"id"`
			Name string     `json:"name"`
			File string     `json:"file"`
		} `json:"workflows"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return errs.Invalid("file", "manifest.json cannot be read: %v", err)
	}
	for i, e := range m.Workflows {
		w := findFile(ws, path.Join(dir, e.File))
		if w == nil {
			return errs.Invalid("file", "manifest.json: workflows[%d].file %q is not in the zip", i, e.File)
		}
		if e.ID != "" {
			w.ID = string(e.ID)
		}
		if e.Name != "" {
			w.Name = e.Name
		}
	}
	return nil
}

func findFile(ws []ExportWorkflow, name string) *ExportWorkflow {
	for i := range ws {
		if ws[i].File == name {
			return &ws[i]
		}
	}
	return nil
}

// CheckExport checks that an export holds workflows, each with a distinct
// id and a canvas.
func CheckExport(ws []ExportWorkflow) error {
	if len(ws) == 0 {
		return errs.Invalid("workflows", "holds no workflow: give Coze Studio canvases (.flow or .json)")
	}
	if len(ws) > MaxExportWorkflows {
		return errs.Invalid("workflows", "holds %d workflows; at most %d are imported at once", len(ws), MaxExportWorkflows)
	}
	seen := map[string]string{}
	for i, w := range ws {
		at := exportAt(i, w)
		if w.ID == "" {
			return errs.Invalid(at+".id", "is missing: name the file by its Coze workflow id or give it in manifest.json")
		}
		if prev, ok := seen[w.ID]; ok {
			return errs.Invalid(at+".id", "%s is also the id of %s", w.ID, prev)
		}
		seen[w.ID] = at
		if s := strings.TrimSpace(string(w.Canvas)); s == "" || s == "null" {
			return errs.Invalid(at+".canvas", "is required")
		}
	}
	return nil
}

// exportAt names a workflow of an export in messages: workflows[<i>]
// (<file>).
func exportAt(i int, w ExportWorkflow) string {
	if w.File != "" {
		return fmt.Sprintf("workflows[%d] (%s)", i, w.File)
	}
	return fmt.Sprintf("workflows[%d]", i)
}

var nameUnsafeRE = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// WorkflowName turns a file name into a workflow name: letters, digits
// and _, starting with a letter, at most 64 characters.
func WorkflowName(s string) string {
	s = strings.Trim(nameUnsafeRE.ReplaceAllString(s, "_"), "_")
	if s == "" || !(s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') {
		s = "wf_" + s
	}
	return strings.TrimRight(s[:min(len(s), 64)], "_")
}
