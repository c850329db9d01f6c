package cozeimport

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
)

// startRef is a reference to the start node's output name.
func startRef(name, typ string) string {
	return `{"type":"` + typ + `","value":{"type":"ref","content":{"source":"block-output","blockID":"100001","name":"` + name + `"}}}`
}

// oneNode wraps a node in a canvas with a start node giving q (string)
// and n (integer).
func oneNode(node string) []byte {
	return []byte(`{"nodes":[{"id":"100001","type":"1","data":{"outputs":[{"name":"q","type":"string"},{"name":"n","type":"integer"}]}},` +
		node + `],"edges":[{"sourceNodeID":"100001","targetNodeID":"7"}]}`)
}

// converted returns the JSON of Coze node 7 and the report of converting node.
func converted(t *testing.T, node string) (string, Report) {
	t.Helper()
	res, err := Convert(oneNode(node), goldenOptions())
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	id := "n7"
	for _, r := range append(res.Report.Converted, res.Report.NeedsConversion...) {
		if r.ID == "7" {
			id = r.PergolaID
		}
	}
	for _, n := range res.Definition.Nodes {
		if n.ID == id {
			b, _ := json.Marshal(n)
			return string(b), res.Report
		}
	}
	return "", res.Report
}

// TestNodeTypes converts one node of each kind and checks the DSL node.
func TestNodeTypes(t *testing.T) {
	tests := []struct {
		name, node, want string
	}{
		{"end returning text", `{"id":"7","type":"2","data":{"inputs":{"terminatePlan":"useAnswerContent","inputParameters":[{"name":"a","input":` +
			startRef("q", "string") + `}],"content":{"type":"string","value":{"type":"literal","content":"Hi {{a}}"}}}}}`,
			`{"id":"end","type":"end","config":{"mode":"text","template":"Hi {{a}}"},"inputs":{"a":{"type":"string","ref":{"node":"start","path":"q"}}}}`},
		{"literal values typed as Coze writes them", `{"id":"7","type":"13","data":{"inputs":{"inputParameters":[` +
			`{"name":"i","input":{"type":"integer","value":{"type":"literal","content":"42"}}},` +
			`{"name":"b","input":{"type":"boolean","value":{"type":"literal","content":"true"}}},` +
			`{"name":"l","input":{"type":"list","value":{"type":"literal","content":"[1,2]"}}}],` +
			`"content":{"type":"string","value":{"type":"literal","content":"{{i}} {{ l[1] }}"}}}}}`,
			`{"id":"n7","type":"message","config":{"template":"{{i}} {{l.1}}"},"inputs":{"b":{"value":true},"i":{"value":42},"l":{"value":[1,2]}}}`},
		{"variables of the user and the run", `{"id":"7","type":"2","data":{"inputs":{"inputParameters":[` +
			`{"name":"city","input":{"type":"string","value":{"type":"ref","content":{"source":"global_variable_user","path":["city"]}}}},` +
			`{"name":"uid","input":{"type":"string","value":{"type":"ref","content":{"source":"global_variable_system","path":["sys_user_id"]}}}}]}}}`,
			`{"id":"end","type":"end","config":{"mode":"variables"},"inputs":{"city":{"type":"string","variable":"city"},"uid":{"type":"string","variable":"sys.user_id"}}}`},
		{"JSON serialization", `{"id":"7","type":"58","data":{"inputs":{"inputParameters":[{"name":"input","input":` + startRef("q", "string") + `}]}}}`,
			`{"id":"n7","type":"json_stringify","config":{},"inputs":{"value":{"type":"string","ref":{"node":"start","path":"q"}}}}`},
		{"plugin mapped", `{"id":"7","type":"4","data":{"inputs":{"apiParam":[{"name":"pluginID","input":{"type":"string","value":{"type":"literal","content":"5001"}}},` +
			`{"name":"apiName","input":{"type":"string","value":{"type":"literal","content":"search"}}}],"inputParameters":[{"name":"query","input":` +
			startRef("q", "string") + `}]},"outputs":[{"name":"items","type":"list","schema":{"type":"string"}}]}}`,
			`{"id":"n7","type":"plugin","config":{"plugin_id":7,"tool":"search"},"inputs":{"query":{"type":"string","ref":{"node":"start","path":"q"}}},"outputs":[{"name":"items","type":"array","items":{"type":"string"}}]}`},
		{"HTTP POST with a JSON body and custom auth", `{"id":"7","type":"45","data":{"inputs":{"apiInfo":{"method":"post","url":"https://x.test/a"},` +
			`"auth":{"authType":"CUSTOM_AUTH","authOpen":true,"authData":{"customData":{"addTo":"query","data":[{"name":"Key","input":{"type":"string","value":{"type":"literal","content":"k"}}},` +
			`{"name":"Value","input":` + startRef("q", "string") + `}]}}},` +
			`"body":{"bodyType":"JSON","bodyData":{"json":"{\"q\": \"{{block_output_100001.q}}\"}"}}}}}`,
			`{"id":"n7","type":"http","config":{"body":"{\"q\": \"{{ref_100001_q}}\"}","body_type":"json","method":"POST","query":{"k":"{{auth_1}}"},"url":"https://x.test/a"},` +
				`"inputs":{"auth_1":{"type":"string","ref":{"node":"start","path":"q"}},"ref_100001_q":{"ref":{"node":"start","path":"q"}}}}`},
		{"error branch and default output", `{"id":"7","type":"5","data":{"inputs":{"language":5,"code":"function main(){return {a:1}}",` +
			`"settingOnError":{"processType":2,"dataOnErr":"{\"a\":0}","retryTimes":9,"timeoutMs":500}},"outputs":[{"name":"a","type":"integer"}]}}`,
			`{"id":"n7","type":"code","config":{"code":"function main(){return {a:1}}","language":"typescript"},"outputs":[{"name":"a","type":"integer"}],` +
				`"settings":{"timeout_ms":500,"retries":5,"on_error":"default","default_output":{"a":0}}}`},
		{"default output from the switch and dataOnErr alone (no processType, as older canvases)", `{"id":"7","type":"5","data":{"inputs":{"language":5,` +
			`"code":"function main(){return {a:1}}","settingOnError":{"switch":true,"dataOnErr":"{\"a\":0}"}},"outputs":[{"name":"a","type":"integer"},` +
			`{"name":"isSuccess","type":"boolean"}]}}`,
			`{"id":"n7","type":"code","config":{"code":"function main(){return {a:1}}","language":"typescript"},"outputs":[{"name":"a","type":"integer"}],` +
				`"settings":{"on_error":"default","default_output":{"a":0}}}`},
		{"switch off: dataOnErr alone handles nothing", `{"id":"7","type":"5","data":{"inputs":{"language":5,` +
			`"code":"function main(){return {a:1}}","settingOnError":{"switch":false,"dataOnErr":"{\"a\":0}"}},"outputs":[{"name":"a","type":"integer"}]}}`,
			`{"id":"n7","type":"code","config":{"code":"function main(){return {a:1}}","language":"typescript"},"outputs":[{"name":"a","type":"integer"}]}`},
		{"question with options", `{"id":"7","type":"18","data":{"inputs":{"answer_type":"option","option_type":"static","question":"Pick",` +
			`"options":[{"name":"tea"},{"name":"coffee"}]}}}`,
			`{"id":"n7","type":"question","config":{"allow_other":true,"answer_type":"option","options":["tea","coffee"],"question":"Pick"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := converted(t, tt.node)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnsupportedValues reports nodes whose values or settings Pergola
// lacks, naming the node.
func TestUnsupportedValues(t *testing.T) {
	tests := []struct{ name, node, reason string }{
		{"a conversation variable", `{"id":"7","type":"40","data":{"inputs":{"inputParameters":[{"left":{"type":"string",` +
			`"value":{"type":"ref","content":{"source":"conversation","path":["x"]}}},"right":{"type":"string","value":{"type":"literal","content":"v"}}}]}}}`,
			"assigns a conversation variable"},
		{"dynamic options", `{"id":"7","type":"18","data":{"inputs":{"answer_type":"option","option_type":"dynamic","question":"Pick"}}}`, "run time"},
		{"a batch over two arrays", `{"id":"7","type":"28","data":{"inputs":{"inputParameters":[{"name":"a","input":` + startRef("q", "list") +
			`},{"name":"b","input":` + startRef("q", "list") + `}]}}}`, "2 arrays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rep := converted(t, tt.node)
			if len(rep.Unsupported) != 1 || rep.Unsupported[0].ID != "7" || !strings.Contains(rep.Unsupported[0].Reason, tt.reason) {
				t.Fatalf("unsupported = %+v, want node 7 for %q", rep.Unsupported, tt.reason)
			}
		})
	}
}

// TestMalformedCanvases fail with errs.ErrInvalid naming the node.
func TestMalformedCanvases(t *testing.T) {
	tests := []struct{ name, canvas, want string }{
		{"not JSON", `{"nodes":`, "canvas: is not a Coze Studio canvas"},
		{"no nodes", `{"nodes":[]}`, "canvas.nodes: is empty"},
		{"dangling reference", string(oneNode(`{"id":"7","type":"2","data":{"inputs":{"inputParameters":[{"name":"a","input":` +
			`{"type":"string","value":{"type":"ref","content":{"source":"block-output","blockID":"404","name":"x"}}}}]}}}`)),
			"nodes[7].data.inputs.inputParameters[0]: references node 404"},
		{"bad literal", string(oneNode(`{"id":"7","type":"2","data":{"inputs":{"inputParameters":[{"name":"a","input":` +
			`{"type":"integer","value":{"type":"literal","content":"many"}}}]}}}`)), "nodes[7].data.inputs.inputParameters[0]: is not a integer literal"},
		{"binary body without a file", string(oneNode(`{"id":"7","type":"45","data":{"inputs":{"apiInfo":{"method":"PUT","url":"https://x.test"},"body":{"bodyType":"BINARY","bodyData":{}}}}}`)),
			"nodes[7].data.inputs.body.bodyData.binary.fileURL: is required for a BINARY body"},
		{"unknown operator", string(oneNode(`{"id":"7","type":"8","data":{"inputs":{"branches":[{"condition":{"logic":2,"conditions":[` +
			`{"operator":17,"left":{"input":` + startRef("q", "string") + `}}]}}]}}}`)),
			"nodes[7].data.inputs.branches[0].condition.conditions[0].operator: 17 is not a Coze condition operator"},
		{"body node", `{"nodes":[{"id":"1","type":"21","data":{"inputs":{"loopType":"infinite"}},"blocks":[{"id":"2","type":"43","data":{"inputs":{}}}]}]}`,
			"nodes[1].blocks[2].data.inputs.databaseInfoList: must name one database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Convert([]byte(tt.canvas), Options{})
			if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrInvalid naming %q", err, tt.want)
			}
		})
	}
}

// TestAllowPartialKeepsAFailingPlaceholder and a canvas given as a string.
func TestAllowPartialKeepsAFailingPlaceholder(t *testing.T) {
	canvas, _ := json.Marshal(string(oneNode(`{"id":"7","type":"16","data":{"outputs":[{"name":"data","type":"string"}]}}`)))
	res, err := Convert(canvas, Options{AllowPartial: true})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Definition.Nodes[1]
	if n.ID != "n7" || n.Type != "code" || len(n.Outputs) != 1 || !strings.Contains(string(n.Config), "Coze node 7 (type 16) was not converted") {
		t.Fatalf("placeholder = %+v %s", n, n.Config)
	}
	if got := res.Report.UnsupportedText(); !strings.HasPrefix(got, "nodes[7] (type 16): Coze image") {
		t.Fatalf("UnsupportedText = %q", got)
	}
}

// TestAppVariables: reads of app variables become app.<name> variable
// inputs, assignments an assign node listing them under app, and the
// result names every app variable the canvas uses.
func TestAppVariables(t *testing.T) {
	read := `{"id":"7","type":"2","data":{"inputs":{"terminatePlan":"returnVariables","inputParameters":[{"name":"a","input":{"type":"string",` +
		`"value":{"type":"ref","content":{"source":"global_variable_app","path":["theme"]}}}}]}}}`
	res, err := Convert(oneNode(read), Options{})
	if err != nil {
		t.Fatal(err)
	}
	end := res.Definition.Nodes[len(res.Definition.Nodes)-1]
	if end.Inputs["a"].Variable != "app.theme" || !slices.Equal(res.AppVariables, []string{"theme"}) {
		t.Fatalf("end inputs %+v, app variables %v", end.Inputs, res.AppVariables)
	}
	assign := `{"id":"7","type":"40","data":{"inputs":{"inputParameters":[` +
		`{"left":{"type":"string","value":{"type":"ref","content":{"source":"global_variable_app","path":["theme"]}}},"right":{"type":"string","value":{"type":"literal","content":"dark"}}},` +
		`{"left":{"type":"string","value":{"type":"ref","content":{"source":"global_variable_user","path":["name"]}}},"right":{"type":"string","value":{"type":"literal","content":"Ann"}}}]}}}`
	res, err = Convert(oneNode(assign), Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Definition.Nodes[len(res.Definition.Nodes)-1]
	if string(n.Config) != `{"app":["theme"]}` || n.Inputs["theme"].Value != "dark" || n.Inputs["name"].Value != "Ann" {
		t.Fatalf("assign node = %s %+v", n.Config, n.Inputs)
	}
}
