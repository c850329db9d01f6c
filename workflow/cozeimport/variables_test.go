package cozeimport

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

// globalRead is an End node returning Coze global variable path of source.
func globalRead(source, typ string, path ...string) string {
	return `{"id":"7","type":"2","data":{"inputs":{"terminatePlan":"returnVariables","inputParameters":[{"name":"a","input":{"type":"` + typ +
		`","value":{"type":"ref","content":{"source":"` + source + `","path":["` + strings.Join(path, `","`) + `"]}}}}]}}}`
}

// globalAssign is a variable assigner node storing a literal in each
// Coze global variable source:name given.
func globalAssign(vars ...string) string {
	var params []string
	for _, v := range vars {
		source, name, _ := strings.Cut(v, ":")
		params = append(params, `{"left":{"type":"integer","value":{"type":"ref","content":{"source":"`+source+`","path":["`+name+`"]}}},`+
			`"right":{"type":"integer","value":{"type":"literal","content":"7"}}}`)
	}
	return `{"id":"7","type":"40","data":{"inputs":{"inputParameters":[` + strings.Join(params, ",") + `]}}}`
}

// endVariable converts a canvas whose node 7 is an End node and returns
// the variable its input a reads.
func endVariable(t *testing.T, node string, opts Options) (string, *Result) {
	t.Helper()
	res, err := Convert(oneNode(node), opts)
	if err != nil {
		t.Fatal(err)
	}
	end := res.Definition.Nodes[len(res.Definition.Nodes)-1]
	return end.Inputs["a"].Variable, res
}

// TestUserVariablesInAnApp: Coze keeps the user variables of an app per
// app and end user, so imported into an app they are app variables (of
// the type the canvas reads them as); otherwise bot variables.
func TestUserVariablesInAnApp(t *testing.T) {
	read := globalRead("global_variable_user", "integer", "visits")
	if v, res := endVariable(t, read, Options{InApp: true}); v != "app.visits" || !slices.Equal(res.AppVariables, []string{"visits"}) ||
		res.AppVariableTypes["visits"] != "integer" {
		t.Fatalf("in an app: variable %q, app variables %v %v", v, res.AppVariables, res.AppVariableTypes)
	}
	if v, res := endVariable(t, read, Options{}); v != "visits" || len(res.AppVariables) != 0 {
		t.Fatalf("outside an app: variable %q, app variables %v", v, res.AppVariables)
	}
	res, err := Convert(oneNode(globalAssign("global_variable_user:visits", "global_variable_app:score")), Options{InApp: true})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Definition.Nodes[len(res.Definition.Nodes)-1]
	if string(n.Config) != `{"app":["visits","score"]}` || res.AppVariableTypes["score"] != "integer" {
		t.Fatalf("assign in an app: config %s, types %v", n.Config, res.AppVariableTypes)
	}
	res, err = Convert(oneNode(globalAssign("global_variable_user:visits", "global_variable_app:score")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Definition.Nodes[len(res.Definition.Nodes)-1]; string(n.Config) != `{"app":["score"]}` {
		t.Fatalf("assign outside an app: config %s", n.Config)
	}
}

// TestSystemVariables: Coze's sys_uuid is the end user's id.
func TestSystemVariables(t *testing.T) {
	for coze, want := range map[string]string{"sys_uuid": "sys.user_id", "sys_bot_id": "sys.bot_id", "sys_connector_id": "sys.connector_id"} {
		if v, _ := endVariable(t, globalRead("global_variable_system", "string", coze), Options{}); v != want {
			t.Errorf("%s read as %q, want %q", coze, v, want)
		}
	}
	_, rep := converted(t, globalRead("global_variable_system", "string", "sys_weather"))
	if len(rep.Unsupported) != 1 || !strings.Contains(rep.Unsupported[0].Reason, `system variable "sys_weather"`) {
		t.Fatalf("unsupported = %+v", rep.Unsupported)
	}
}

// TestVariableRefusals: a field of a variable is reported; a user and an
// app variable of one name in an app, and an empty path, fail naming the
// field.
func TestVariableRefusals(t *testing.T) {
	_, rep := converted(t, globalRead("global_variable_app", "string", "profile", "city"))
	if len(rep.Unsupported) != 1 || !strings.Contains(rep.Unsupported[0].Reason, `reads field city of variable "profile"`) {
		t.Fatalf("unsupported = %+v", rep.Unsupported)
	}
	_, err := Convert(oneNode(globalAssign("global_variable_app:theme", "global_variable_user:theme")), Options{InApp: true})
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "nodes[7].data.inputs.inputParameters[1].left: uses \"theme\" as a global_variable_user") {
		t.Fatalf("a user and an app variable of one name: %v", err)
	}
	if _, err := Convert(oneNode(globalAssign("global_variable_app:theme", "global_variable_user:theme")), Options{}); err != nil {
		t.Fatalf("outside an app the two are distinct: %v", err)
	}
	_, err = Convert(oneNode(globalRead("global_variable_app", "string", "")), Options{})
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "names no variable") {
		t.Fatalf("an empty path: %v", err)
	}
}
