package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// appCase is a conformance case over app variables: Coze canvases
// imported into one app, run in order by end users; the values they
// assign carry from one run to the next.
type appCase struct {
	Description string `json:"description"`
	App         struct {
		Variables []cz `json:"variables"`
	} `json:"app"`
	// Workflows are imported in order into the app and published; one
	// with a Coze id is what later canvases call by that id.
	Workflows []struct {
		CozeID string          `json:"coze_id"`
		Name   string          `json:"name"`
		Canvas json.RawMessage `json:"canvas"`
	} `json:"workflows"`
	// Declared are the app variables the imports declare on the app.
	Declared []string `json:"declared"`
	Runs     []struct {
		Workflow string         `json:"workflow"`
		User     string         `json:"user"`
		Inputs   map[string]any `json:"inputs"`
		Output   map[string]any `json:"output"`
	} `json:"runs"`
}

// TestAppVariablesConformance imports each appvars_*.json case into a new
// app and runs its runs in order, once through /v1/workflow/run and once
// (in another app) through /v1/workflow/stream_run.
func TestAppVariablesConformance(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "appvars_*.json"))
	if len(files) == 0 {
		t.Fatal("no app variable cases in " + conformanceDir)
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			for _, f := range files {
				name := strings.TrimSuffix(filepath.Base(f), ".json")
				cc := readAppCase(t, f)
				for _, mode := range []string{"run", "stream_run"} {
					t.Run(name+"/"+mode, func(t *testing.T) { c.conformApp(t, name+"-"+mode, mode, cc) })
				}
			}
		})
	}
}

func readAppCase(t *testing.T, path string) appCase {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cc appCase
	if err := json.Unmarshal(raw, &cc); err != nil || len(cc.Runs) == 0 || len(cc.Workflows) == 0 {
		t.Fatalf("%s: %v (runs: %d, workflows: %d)", path, err, len(cc.Runs), len(cc.Workflows))
	}
	return cc
}

// conformApp makes the case's app, imports its workflows and checks every
// run, through the sync or the streamed route.
func (c *chatSetup) conformApp(t *testing.T, name, mode string, cc appCase) {
	appID := str(c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": name,
		"variables": cc.App.Variables}).must(t, 201).data, "id")
	ids := c.importIntoApp(t, appID, cc)
	for i, run := range cc.Runs {
		body := cz{"workflow_id": ids[run.Workflow], "app_id": appID, "parameters": run.Inputs, "ext": cz{"user_id": run.User}}
		var got map[string]any
		if mode == "run" {
			got = decodeData(t, c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, body).must(t, 200))
		} else {
			got = streamedOutput(t, c.s.workflowStream(t, body))
		}
		if !cmp.Equal(got, run.Output) {
			t.Errorf("run %d (%s by %s, %v): output differs (-want +got):\n%s", i, run.Workflow, run.User, run.Inputs, cmp.Diff(run.Output, got))
		}
	}
}

// importIntoApp imports and publishes the case's workflows with app_id
// and returns their ids by name; the imports must declare cc.Declared.
func (c *chatSetup) importIntoApp(t *testing.T, appID string, cc appCase) map[string]string {
	t.Helper()
	ids, flows := map[string]string{}, cz{}
	var declared []string
	for _, w := range cc.Workflows {
		r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "name": w.Name, "app_id": appID,
			"canvas": w.Canvas, "mappings": cz{"models": map[string]string{"1001": "fake"}, "workflows": flows}}).must(t, 201)
		added, _ := r.data["app_variables_added"].([]any)
		for _, v := range added {
			declared = append(declared, v.(string))
		}
		id := str(r.data["workflow"].(map[string]any), "id")
		c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
		ids[w.Name] = id
		if w.CozeID != "" {
			flows[w.CozeID] = cz{"id": id, "version": 1}
		}
	}
	slices.Sort(declared)
	if !slices.Equal(declared, cc.Declared) {
		t.Fatalf("the imports declared %v, want %v", declared, cc.Declared)
	}
	return ids
}
