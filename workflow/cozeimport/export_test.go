package cozeimport

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	bottomID = "7400000000000000001"
	middleID = "7400000000000000002"
	topID    = "7400000000000000003"
)

// exportZip zips the files of testdata/export (and extra files).
func exportZip(t *testing.T, extra map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	files, _ := filepath.Glob("testdata/export/*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := zw.Create("export/" + filepath.Base(f))
		w.Write(b)
	}
	for name, body := range extra {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// exportFiles reads testdata/export as an export without a zip.
func exportFiles(t *testing.T) []ExportWorkflow {
	t.Helper()
	ws, err := ReadExport(exportZip(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestReadExportFindsIdsAndNames: the .flow file's id is inside it, the
// .json file's in its name, the manifest names the third; junk is
// ignored.
func TestReadExportFindsIdsAndNames(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	files, _ := filepath.Glob("testdata/export/*")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		w, _ := zw.Create(filepath.Base(f))
		w.Write(b)
	}
	for _, junk := range []string{"__MACOSX/._top.json", ".DS_Store", "notes.txt"} {
		w, _ := zw.Create(junk)
		w.Write([]byte("junk"))
	}
	zw.Close()
	ws, err := ReadExport(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, w := range ws {
		got[w.File] = w.ID + " " + w.Name
	}
	want := map[string]string{
		"coze-workflow-" + bottomID + ".flow": bottomID + " coze_workflow_" + bottomID,
		middleID + ".json":                    middleID + " wf_" + middleID,
		"top.json":                            topID + " decorate_query",
	}
	if len(got) != len(want) {
		t.Fatalf("workflows = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	for _, w := range ws {
		if _, err := Convert(w.Canvas, Options{DefaultModelID: "fake", Workflows: map[string]WorkflowRef{bottomID: {1, 1}, middleID: {2, 1}}}); err != nil {
			t.Fatalf("%s does not convert: %v", w.File, err)
		}
	}
}

// TestReadExportRefusesBadArchives names what is wrong.
func TestReadExportRefusesBadArchives(t *testing.T) {
	cases := map[string]struct {
		data []byte
		want string
	}{
		"not a zip":      {[]byte("{}"), "is not a zip archive"},
		"no workflows":   {zipOf(t, map[string]string{"readme.txt": "hi"}), "holds no workflow"},
		"no id":          {zipOf(t, map[string]string{"flow.json": `{"nodes":[{"id":"1","type":"1"}]}`}), "workflows[0] (flow.json).id: is missing"},
		"twice the id":   {zipOf(t, map[string]string{"a/7.json": "{}", "b/7.json": "{}"}), "7 is also the id of"},
		"manifest wrong": {zipOf(t, map[string]string{"7.json": "{}", "manifest.json": `{"workflows":[{"file":"x.json"}]}`}), `"x.json" is not in the zip`},
		"too large": {zipOf(t, map[string]string{"7.json": strings.Repeat(" ", MaxExportCanvasBytes+1)}),
			"is larger than"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadExport(c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want %q", err, c.want)
			}
		})
	}
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	return buf.Bytes()
}

// TestPlanExportOrdersByWhatRuns: the bottom workflow first, then the
// middle one, then the top; the two that are run are to be published.
func TestPlanExportOrdersByWhatRuns(t *testing.T) {
	ws := exportFiles(t)
	p, err := PlanExport(ws, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, i := range p.Order {
		ids = append(ids, ws[i].ID)
	}
	if !slices.Equal(ids, []string{bottomID, middleID, topID}) {
		t.Fatalf("order = %v", ids)
	}
	if !p.Used[bottomID] || !p.Used[middleID] || p.Used[topID] {
		t.Fatalf("used = %v, want the bottom and middle workflows", p.Used)
	}
}

// TestPlanExportRefusesMissingWorkflowsAndCycles names the node, its
// type and field.
func TestPlanExportRefusesMissingWorkflowsAndCycles(t *testing.T) {
	ws := exportFiles(t)
	var rest []ExportWorkflow
	for _, w := range ws {
		if w.ID != bottomID {
			rest = append(rest, w)
		}
	}
	_, err := PlanExport(rest, nil, false)
	want := `nodes[301].data.inputs.workflowId: (a type 9 node) runs Coze workflow "` + bottomID + `", which is neither in the import nor mapped`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
	if _, err := PlanExport(rest, map[string]WorkflowRef{bottomID: {ID: 5, Version: 1}}, false); err != nil {
		t.Fatalf("with the missing workflow mapped: %v", err)
	}
	if _, err := PlanExport(rest, nil, true); err != nil {
		t.Fatalf("allow_partial: %v", err)
	}

	for i := range ws {
		if ws[i].ID == bottomID { // the bottom workflow now runs the top one
			ws[i].Canvas = []byte(strings.Replace(string(ws[i].Canvas), `"id": "201",`+"\n"+`    "type": "15"`, `"id": "201", "type": "9"`, 1))
			ws[i].Canvas = []byte(strings.Replace(string(ws[i].Canvas), `"method": "concat",`, `"workflowId": "`+topID+`", "method": "concat",`, 1))
		}
	}
	_, err = PlanExport(ws, nil, false)
	if err == nil || !strings.Contains(err.Error(), "cycle") || !strings.Contains(err.Error(), "through nodes[201] (type 9) data.inputs.workflowId") {
		t.Fatalf("error = %v, want a cycle through node 201", err)
	}
}

// TestReferencesFindsWorkflowSkills: an LLM node's workflow skills are
// references too, named by their field; a sub-workflow in a loop body by
// its place.
func TestReferencesFindsWorkflowSkills(t *testing.T) {
	canvas := `{"nodes":[{"id":"1","type":"1"},{"id":"3","type":"3","data":{"inputs":{"fcParam":{"workflowFCParam":
		{"workflowList":[{"workflow_id":"71"},{"workflow_id":72}]}}}}},{"id":"21","type":"21","blocks":[
		{"id":"9","type":"9","data":{"inputs":{"workflowId":"73"}}}]}]}`
	refs, err := References([]byte(canvas))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs {
		got = append(got, r.Describe())
	}
	want := []string{
		"nodes[3] (type 3) data.inputs.fcParam.workflowFCParam.workflowList[0].workflow_id = 71",
		"nodes[3] (type 3) data.inputs.fcParam.workflowFCParam.workflowList[1].workflow_id = 72",
		"nodes[21].blocks[9] (type 9) data.inputs.workflowId = 73",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("references = %q, want %q", got, want)
	}
	mapped := map[string]WorkflowRef{"71": {1, 1}, "73": {3, 1}}
	err = CheckReferences([]byte(canvas), mapped, false)
	if err == nil || !strings.Contains(err.Error(), `workflowList[1].workflow_id: (a type 3 node) runs Coze workflow "72"`) {
		t.Fatalf("an unmapped workflow skill: %v", err)
	}
	// allow_partial keeps LLM nodes with unmapped skills as it keeps
	// sub-workflow nodes: the converter reports what it leaves out.
	if err := CheckReferences([]byte(canvas), mapped, true); err != nil {
		t.Fatalf("allow_partial refused an unmapped workflow skill: %v", err)
	}
}

// An LLM node's workflow skill that is neither imported nor mapped is left
// out and reported, the others kept.
func TestUnmappedWorkflowSkillLeftOut(t *testing.T) {
	llm := `{"id":"7","type":"3","data":{"inputs":{"llmParam":[{"name":"modelType","input":{"type":"string","value":{"type":"literal","content":"1001"}}},` +
		`{"name":"prompt","input":{"type":"string","value":{"type":"literal","content":"hi"}}}],` +
		`"fcParam":{"workflowFCParam":{"workflowList":[{"workflow_id":"71"},{"workflow_id":"72"}]}}},"outputs":[{"name":"output","type":"string"}]}}`
	opts := goldenOptions()
	opts.RequireWorkflowMappings, opts.AllowPartial = true, true
	opts.Workflows = map[string]WorkflowRef{"71": {ID: 11, Version: 2}}
	res, err := Convert(oneNode(llm), opts)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	var cfg string
	for _, n := range res.Definition.Nodes {
		if n.ID == "n7" {
			cfg = string(n.Config)
		}
	}
	if !strings.Contains(cfg, `"workflows":[{"version":2,"workflow_id":11}]`) {
		t.Errorf("config = %s, want only the mapped workflow tool", cfg)
	}
	if len(res.Report.NeedsConversion) != 1 || !strings.Contains(res.Report.NeedsConversion[0].Reason, "workflow tool 72 is left out") {
		t.Errorf("report = %+v", res.Report.NeedsConversion)
	}
}
