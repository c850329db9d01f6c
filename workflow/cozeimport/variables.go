package cozeimport

import (
	"encoding/json"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// Coze's global variables and what they become:
//
//   - global_variable_app: an app variable, read as app.<name> and
//     assigned through the variable_assign node's config.app.
//   - global_variable_user: Coze keeps a user variable of an app per app
//     and end user, and of a bot per bot and end user. Imported into an
//     app (Options.InApp) it is an app variable too; otherwise a bot
//     variable.
//   - global_variable_system: a value of the run (sysVariable); Coze's
//     sys_uuid, the end user's id, is sys.user_id.

const (
	sourceApp    = "global_variable_app"
	sourceUser   = "global_variable_user"
	sourceSystem = "global_variable_system"
)

// sysVariable maps a Coze system variable to the run value it names.
func sysVariable(name string) (string, bool) {
	rest := strings.TrimPrefix(name, "sys_")
	switch rest {
	case "uuid":
		return "sys.user_id", true
	case "user_id", "bot_id", "workflow_id", "execute_id", "connector_id":
		return "sys." + rest, true
	}
	return "", false
}

// globalRef converts a read of one of Coze's global variables.
func (nc *nodeConv) globalRef(r blockRef, field string) (workflow.Input, error) {
	if err := nc.checkVariablePath(r, field); err != nil {
		return workflow.Input{}, err
	}
	if r.Source == sourceSystem {
		if v, ok := sysVariable(r.Path[0]); ok {
			return workflow.VariableInput(v), nil
		}
		return workflow.Input{}, unsupported("%s reads system variable %q, which Pergola does not have", field, r.Path[0])
	}
	app, err := nc.isAppVariable(r, field)
	if err != nil || !app {
		return workflow.VariableInput(r.Path[0]), err
	}
	return workflow.VariableInput("app." + r.Path[0]), nil
}

// assignedVariable names the variable an assignment's left side stores,
// and whether it is an app variable.
func (nc *nodeConv) assignedVariable(r blockRef, field string) (string, bool, error) {
	if err := nc.checkVariablePath(r, field); err != nil {
		return "", false, err
	}
	if r.Source != sourceApp && r.Source != sourceUser {
		return "", false, unsupported("%s assigns a %s variable; Pergola assigns app and user variables", field, r.Source)
	}
	app, err := nc.isAppVariable(r, field)
	return r.Path[0], app, err
}

// checkVariablePath accepts a path naming one whole variable.
func (nc *nodeConv) checkVariablePath(r blockRef, field string) error {
	switch {
	case len(r.Path) == 0 || r.Path[0] == "":
		return errs.Invalid(nc.at+"."+field, "names no variable (path is empty)")
	case len(r.Path) > 1:
		return unsupported("%s reads field %s of variable %q; Pergola reads whole variables (read it and take the field in a later node)",
			field, strings.Join(r.Path[1:], "."), r.Path[0])
	}
	return nil
}

// isAppVariable tells whether a reference to a user or app variable is an
// app variable of the import, noting it if so. In an app a user and an
// app variable of one name would be one variable: that fails.
func (nc *nodeConv) isAppVariable(r blockRef, field string) (bool, error) {
	if r.Source == sourceUser && !nc.c.opts.InApp {
		return false, nil
	}
	name := r.Path[0]
	if nc.c.varSources == nil {
		nc.c.varSources = map[string]string{}
	}
	if was, ok := nc.c.varSources[name]; ok && was != r.Source {
		return false, errs.Invalid(nc.at+"."+field, "uses %q as a %s and elsewhere as a %s; in an app both are the app's "+
			"variable %q: rename one of them in Coze Studio", name, r.Source, was, name)
	}
	nc.c.varSources[name] = r.Source
	nc.c.appVariable(name)
	return true, nil
}

// assignedTypes notes the types the assignments' left sides declare for
// the app variables the canvas does not read.
func (nc *nodeConv) assignedTypes() {
	for _, p := range nc.in.InputParameters {
		var r blockRef
		if p == nil || p.Left == nil || p.Left.Value == nil || json.Unmarshal(p.Left.Value.Content, &r) != nil || len(r.Path) != 1 {
			continue
		}
		if _, known := nc.c.appTypes[r.Path[0]]; !known && nc.c.varSources[r.Path[0]] != "" {
			nc.c.appVariableType(r.Path[0], p.Left.Type)
		}
	}
}
