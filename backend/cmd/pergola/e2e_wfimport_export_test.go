package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestImportCozeExport uploads a zip of three Coze canvases (a .flow file
// as Coze Studio's editor exports it, a canvas named by its workflow id,
// and one named by the manifest) where the top workflow runs the middle
// one, which runs the bottom one: one request imports them in that order,
// publishes the two that are run, and the top one runs through
// /v1/workflow/run and stream_run with the output of all three.
func TestImportCozeExport(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			r := c.s.uploadExport(t, "/api/workflows/import", map[string]string{"workspace_id": c.ws},
				"my-coze-export.zip", zipFiles(t, exportFiles(t))).must(t, 201)
			got := importedWorkflows(t, r)
			var order []string
			for _, w := range got {
				order = append(order, str(w, "coze_id"))
			}
			if !slices.Equal(order, []string{exportBottomID, exportMiddleID, exportTopID}) {
				t.Fatalf("imported in the order %v", order)
			}
			if got[0]["published_version"] != 1.0 || got[1]["published_version"] != 1.0 || got[2]["published_version"] != nil {
				t.Fatalf("published versions %v %v %v, want 1, 1 and the top one a draft",
					got[0]["published_version"], got[1]["published_version"], got[2]["published_version"])
			}
			top := got[2]["workflow"].(map[string]any)
			if top["name"] != "decorate_query" {
				t.Fatalf("the top workflow is named %v, want the manifest's decorate_query", top["name"])
			}
			def, _ := json.Marshal(top["definition"])
			if !strings.Contains(string(def), `"id":"n401"`) || !strings.Contains(string(def), `"title":"Decorate"`) {
				t.Fatalf("the top workflow lost the node id 401 or its title: %s", def)
			}
			id := str(top, "id")
			c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
			params := map[string]any{"query": "hi"}
			if out := c.runOutput(t, id, params); out["answer"] != "<hi>!" {
				t.Fatalf("run output = %v, want answer <hi>!", out)
			}
			if out := streamedOutput(t, c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": params})); out["answer"] != "<hi>!" {
				t.Fatalf("stream_run output = %v, want answer <hi>!", out)
			}
		})
	}
}

// TestImportCozeManifest imports the same workflows as a JSON manifest:
// the bottom one mapped to a Pergola workflow already imported, the two
// others given as canvases by Coze id.
func TestImportCozeManifest(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	files := exportFiles(t)
	bottom := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, map[string]any{"workspace_id": c.ws,
		"name": "bottom", "canvas": json.RawMessage(files["coze-workflow-"+exportBottomID+".flow"])}).must(t, 201)
	bottomID := str(bottom.data["workflow"].(map[string]any), "id")
	c.s.call(t, "POST", "/api/workflows/"+bottomID+"/publish", bootstrapToken, nil).must(t, 201)
	manifest := func(topName string) map[string]any {
		return map[string]any{"workspace_id": c.ws, "workflows": []map[string]any{
			{"id": exportTopID, "name": topName, "canvas": json.RawMessage(files["top.json"])},
			{"id": exportMiddleID, "name": "middle", "canvas": json.RawMessage(files[exportMiddleID+".json"])},
		}, "mappings": map[string]any{"workflows": map[string]any{exportBottomID: map[string]any{"id": bottomID, "version": 1}}}}
	}
	// the top workflow's name is refused after the middle one was created
	// and published: that one is deleted again.
	c.mustFail(t, c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, manifest("9 lives")), 1,
		"workflows[0] (Coze workflow "+exportTopID+")", "name: must start with a letter")
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, manifest("top")).must(t, 201)
	got := importedWorkflows(t, r)
	if len(got) != 2 || str(got[0], "coze_id") != exportMiddleID {
		t.Fatalf("imported %v, want the middle workflow first", got)
	}
	id := str(got[1]["workflow"].(map[string]any), "id")
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	if out := c.runOutput(t, id, map[string]any{"query": "yo"}); out["answer"] != "<yo>!" {
		t.Fatalf("run output = %v", out)
	}
}

// TestImportCozeExportRefusals: an export that cannot be imported answers
// 400 naming the workflow, node, type and field, and creates nothing —
// also when the failure comes after some workflows were created.
func TestImportCozeExportRefusals(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			files := exportFiles(t)
			before := c.workflowCount(t)
			upload := func(f map[string][]byte, fields map[string]string) reply {
				if fields == nil {
					fields = map[string]string{}
				}
				fields["workspace_id"] = c.ws
				return c.s.uploadExport(t, "/api/workflows/import", fields, "export.zip", zipFiles(t, f))
			}
			bottomFile := "coze-workflow-" + exportBottomID + ".flow"

			missing := map[string][]byte{}
			for k, v := range files {
				if k != bottomFile {
					missing[k] = v
				}
			}
			c.mustFail(t, upload(missing, nil), before, "nodes[301].data.inputs.workflowId", "type 9", exportBottomID, "neither in the import nor mapped")

			cycle := withCanvas(files, bottomFile, `"method": "concat",`, `"workflowId": "`+exportTopID+`", "method": "concat",`)
			cycle = withCanvas(cycle, bottomFile, "\"id\": \"201\",\n    \"type\": \"15\"", `"id": "201", "type": "9"`)
			c.mustFail(t, upload(cycle, nil), before, "cycle", "nodes[201] (type 9) data.inputs.workflowId")

			unknown := withCanvas(files, exportMiddleID+".json", `"type": "15"`, `"type": "999"`)
			c.mustFail(t, upload(unknown, nil), before, exportMiddleID, "nodes[302] (type 999)")

			dangling := withCanvas(files, "top.json", `"blockID": "401"`, `"blockID": "404"`)
			c.mustFail(t, upload(dangling, nil), before, "top.json", "nodes[900001].data.inputs.inputParameters[0]", "404")

			// the top workflow reads an output the middle one does not
			// have: the engine refuses it after the other two were created
			// and published, and those are deleted again.
			late := withCanvas(files, "top.json", `"name": "result"`, `"name": "nothing"`)
			late = withCanvas(late, "top.json", `"name": "result"`, `"name": "nothing"`)
			r := upload(late, nil)
			c.mustFail(t, r, before, "top.json", "the converted workflow is invalid")
			if len(importedWorkflows(t, r)) != 3 {
				t.Fatalf("the refusal reports %v, want the three workflows", r.data)
			}

			if r := upload(unknown, map[string]string{"allow_partial": "true"}); r.status != 201 {
				t.Fatalf("allow_partial: %d %s", r.status, r.msg)
			}
		})
	}
}

// TestImportCanvasRefusesUnmappedSubWorkflow: a single canvas running a
// Coze workflow that is not mapped answers 400 naming the node, its type
// and field; mapped, it imports.
func TestImportCanvasRefusesUnmappedSubWorkflow(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	files := exportFiles(t)
	body := map[string]any{"workspace_id": c.ws, "name": "middle", "canvas": json.RawMessage(files[exportMiddleID+".json"])}
	c.mustFail(t, c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, body), 0,
		"nodes[301].data.inputs.workflowId", "type 9", exportBottomID)

	r := c.s.uploadExport(t, "/api/workflows/import", map[string]string{"workspace_id": c.ws, "name": "bottom"},
		"coze-workflow-"+exportBottomID+".flow", files["coze-workflow-"+exportBottomID+".flow"]).must(t, 201)
	bottomID := str(r.data["workflow"].(map[string]any), "id")
	c.s.call(t, "POST", "/api/workflows/"+bottomID+"/publish", bootstrapToken, nil).must(t, 201)
	body["mappings"] = map[string]any{"workflows": map[string]any{exportBottomID: map[string]any{"id": bottomID, "version": 1}}}
	c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, body).must(t, 201)
}

// TestImportCozeManifestIntoApp: a manifest of two app canvases (a setter
// running a reader as Coze workflow 7100) imported with app_id in one
// request declares the app variable they use once, and the setter's run
// shares it with its sub-workflow.
func TestImportCozeManifestIntoApp(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	appID := str(c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": "shop"}).must(t, 201).data, "id")
	setter, reader := appCanvases(t)
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "app_id": appID, "workflows": []cz{
		{"id": "7200", "name": "setter", "canvas": json.RawMessage(setter)},
		{"id": "7100", "name": "reader", "canvas": json.RawMessage(reader)},
	}}).must(t, 201)
	if added, _ := r.data["app_variables_added"].([]any); len(added) != 1 || added[0] != "theme" {
		t.Fatalf("the import declared %v, want theme", r.data["app_variables_added"])
	}
	id := str(importedWorkflows(t, r)[1]["workflow"].(map[string]any), "id")
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	run := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": id, "app_id": appID,
		"parameters": cz{"theme": "dark"}, "ext": cz{"user_id": "ann"}}).must(t, 200)
	if out := decodeData(t, run); out["seen"] != "dark" {
		t.Fatalf("the sub-workflow saw %v", out)
	}
}
