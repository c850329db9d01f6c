package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// secondUser creates another user and returns a personal access token of
// theirs and the id of their own workspace.
func secondUser(t *testing.T, s *testServer, email string) (token, workspace string) {
	t.Helper()
	s.call(t, "POST", "/api/admin/users", bootstrapToken, cz{"email": email, "name": "Other", "password": "other-password-1"}).must(t, 201)
	login := s.call(t, "POST", "/api/auth/login", "", cz{"email": email, "password": "other-password-1"}).must(t, 200)
	token = str(s.call(t, "POST", "/api/tokens", str(login.data, "token"), cz{"name": "ci"}).must(t, 201).data, "token")
	ws := items(t, s.call(t, "GET", "/v1/workspaces", token, nil).must(t, 200).data, "workspaces")
	return token, str(ws[0], "id")
}

// appCanvases are two Coze canvases sharing the app variable theme: the
// first assigns it and calls the second (Coze workflow 7100), which reads
// it back.
func appCanvases(t *testing.T) (setter, reader []byte) {
	appRef := cz{"type": "string", "value": cz{"type": "ref", "content": cz{"source": "global_variable_app", "path": []string{"theme"}}}}
	reader = czCanvas(t, []cz{czStart(), czEnd(czParam("theme", appRef))}, czEdge("100001", "900001"))
	assign := czNode("200", "40", "Set theme", cz{"inputParameters": []cz{{"left": appRef, "right": czRef("100001", "theme", "string")}}},
		czOut("isSuccess", "boolean"))
	sub := czNode("300", "9", "Read back", cz{"workflowId": "7100", "inputParameters": []cz{}}, czOut("theme", "string"))
	setter = czCanvas(t, []cz{czStart(czOut("theme", "string")), assign, sub, czEnd(czParam("seen", czRef("300", "theme", "string")))},
		czEdge("100001", "200"), czEdge("200", "300"), czEdge("300", "900001"))
	return setter, reader
}

// TestAppVariables: an app declares typed variables with defaults; Coze
// canvases that read and assign them import (declaring what the app
// lacks), and runs with app_id share the values per end user between a
// workflow and its sub-workflow; bad input and other workspaces are
// refused.
func TestAppVariables(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			appID := str(c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": "shop",
				"variables": []cz{{"name": "visits", "type": "integer", "default": 0}}}).must(t, 201).data, "id")
			for _, bad := range []struct {
				body cz
				want string
			}{
				{cz{"workspace_id": c.ws, "name": "x", "variables": []cz{{"name": "a", "type": "integer", "default": "ten"}}}, `variables[0].default: "ten" is not a integer`},
				{cz{"workspace_id": c.ws, "name": "x", "variables": []cz{{"name": "a", "type": "text"}}}, "variables[0].type: type must be string"},
				{cz{"workspace_id": c.ws, "name": "x", "variables": []cz{{"name": "a", "type": "string"}, {"name": "a", "type": "string"}}}, `variables[1].name: "a" is declared twice`},
				{cz{"workspace_id": c.ws, "name": " "}, "name: is required"},
			} {
				c.s.call(t, "POST", "/api/apps", bootstrapToken, bad.body).fails(t, 400, 4000, bad.want)
			}
			c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": "SHOP"}).fails(t, 409, 4300, "already has an app named SHOP")

			setter, reader := appCanvases(t)
			r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "name": "reader",
				"canvas": json.RawMessage(reader), "app_id": appID}).must(t, 201)
			if added, _ := r.data["app_variables_added"].([]any); len(added) != 1 || added[0] != "theme" {
				t.Fatalf("import declared %v", r.data["app_variables_added"])
			}
			readerID := str(r.data["workflow"].(map[string]any), "id")
			c.s.call(t, "POST", "/api/workflows/"+readerID+"/publish", bootstrapToken, nil).must(t, 201)
			setterID := c.importPublished(t, "setter", setter, map[string]string{"7100": readerID})
			app := c.s.call(t, "PUT", "/api/apps/"+appID, bootstrapToken, cz{"name": "shop", "variables": []cz{
				{"name": "visits", "type": "integer", "default": 0}, {"name": "theme", "type": "string", "default": "light"}}}).must(t, 200)
			if vars := items(t, app.data, "variables"); len(vars) != 2 || string(mustJSON(vars[1]["default"])) != `"light"` {
				t.Fatalf("app variables = %v", vars)
			}

			run := func(id, user string, params cz) reply {
				return c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": id, "app_id": appID,
					"parameters": params, "ext": cz{"user_id": user}})
			}
			if out := decodeData(t, run(setterID, "ann", cz{"theme": "dark"}).must(t, 200)); out["seen"] != "dark" {
				t.Fatalf("the sub-workflow saw %v", out)
			}
			if out := decodeData(t, run(readerID, "ann", nil).must(t, 200)); out["theme"] != "dark" {
				t.Fatalf("ann's theme later = %v", out)
			}
			if out := decodeData(t, run(readerID, "bo", nil).must(t, 200)); out["theme"] != "light" {
				t.Fatalf("bo's theme = %v (want the default)", out)
			}
			vals := items(t, c.s.call(t, "GET", "/api/apps/"+appID+"/values?user_id=ann", bootstrapToken, nil).must(t, 200).data, "values")
			if len(vals) != 2 || vals[0]["value"] != float64(0) || vals[0]["is_default"] != true || vals[1]["value"] != "dark" || vals[1]["is_default"] != false {
				t.Fatalf("ann's values = %v", vals)
			}
			c.s.call(t, "GET", "/api/apps/"+appID+"/values", bootstrapToken, nil).fails(t, 400, 4000, "user_id: is required")
			reset := "/api/apps/" + appID + "/values/reset"
			c.s.call(t, "POST", reset, bootstrapToken, cz{"user_id": "ann", "names": []string{"theme", "nope"}}).
				fails(t, 400, 4000, `names[1]: app `+appID+` declares no variable "nope"`)
			if out := decodeData(t, run(readerID, "ann", nil).must(t, 200)); out["theme"] != "dark" {
				t.Fatalf("a refused reset changed ann's theme: %v", out)
			}
			c.s.call(t, "POST", reset, bootstrapToken, cz{"user_id": "ann", "names": []string{"theme"}}).must(t, 200)
			if out := decodeData(t, run(readerID, "ann", nil).must(t, 200)); out["theme"] != "light" {
				t.Fatalf("ann's theme after the reset = %v (want the default)", out)
			}
			noApp := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": readerID})
			if !strings.Contains(noApp.msg, "run the workflow with app_id") {
				t.Fatalf("a run without app_id: %d %q", noApp.status, noApp.msg)
			}

			other, otherWS := secondUser(t, c.s, "apps-other@example.com")
			theirs := str(c.s.call(t, "POST", "/api/apps", other, cz{"workspace_id": otherWS, "name": "theirs"}).must(t, 201).data, "id")
			c.s.call(t, "GET", "/api/apps/"+appID, other, nil).fails(t, 404, 4200, "app "+appID+" not found")
			c.s.call(t, "DELETE", "/api/apps/"+appID, other, nil).fails(t, 404, 4200, "not found")
			c.s.call(t, "GET", "/api/apps/"+appID+"/values?user_id=ann", other, nil).fails(t, 404, 4200, "not found")
			c.s.call(t, "POST", "/api/apps/"+appID+"/values/reset", other, cz{"user_id": "ann"}).fails(t, 404, 4200, "not found")
			c.s.call(t, "POST", "/api/apps", other, cz{"workspace_id": c.ws, "name": "intruder"}).fails(t, 403, 4101, "")
			c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": readerID, "app_id": theirs}).
				fails(t, 400, 4000, "app_id: app "+theirs+" is not an app of the workflow's workspace")
			list := items(t, c.s.call(t, "GET", "/api/apps?workspace_id="+c.ws, bootstrapToken, nil).must(t, 200).data, "items")
			if len(list) != 1 || !slices.ContainsFunc(list, func(a map[string]any) bool { return str(a, "id") == appID }) {
				t.Fatalf("apps of the workspace = %v", list)
			}
			c.s.call(t, "DELETE", "/api/apps/"+appID, bootstrapToken, nil).must(t, 200)
			c.s.call(t, "GET", "/api/apps/"+appID, bootstrapToken, nil).fails(t, 404, 4200, "not found")
		})
	}
}

// decodeData reads the output object of a /v1/workflow/run answer.
func decodeData(t *testing.T, r reply) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(str(r.raw, "data")), &out); err != nil {
		t.Fatalf("data = %v is not a JSON string of an object", r.raw["data"])
	}
	return out
}

// TestAppImportChecks: an import names an app of its own workspace, and
// one the app cannot take creates nothing; in an app Coze's user
// variables are app variables, and one name cannot be both; deleting an
// app needs its creator or an admin.
func TestAppImportChecks(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			userRef := cz{"type": "integer", "value": cz{"type": "ref", "content": cz{"source": "global_variable_user", "path": []string{"visits"}}}}
			reader := czCanvas(t, []cz{czStart(), czEnd(czParam("visits", userRef))}, czEdge("100001", "900001"))
			importInto := func(appID string, canvas []byte) reply {
				return c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "name": "r",
					"canvas": json.RawMessage(canvas), "app_id": appID})
			}
			otherWS := str(c.s.call(t, "POST", "/api/workspaces", bootstrapToken, cz{"name": "Elsewhere"}).must(t, 201).data, "id")
			elsewhere := str(c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": otherWS, "name": "far"}).must(t, 201).data, "id")
			importInto(elsewhere, reader).fails(t, 400, 4000, "app_id: app "+elsewhere+" is not an app of workspace "+c.ws)

			var full []cz
			for i := range 50 {
				full = append(full, cz{"name": "v" + strconv.Itoa(i), "type": "string"})
			}
			fullID := str(c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": "full", "variables": full}).must(t, 201).data, "id")
			importInto(fullID, reader).fails(t, 400, 4000, "variables: at most 50, got 51")
			if n := len(items(t, c.s.call(t, "GET", "/api/workflows?workspace_id="+c.ws, bootstrapToken, nil).must(t, 200).data, "items")); n != 0 {
				t.Fatalf("refused imports created %d workflows", n)
			}
			if vars := items(t, c.s.call(t, "GET", "/api/apps/"+fullID, bootstrapToken, nil).must(t, 200).data, "variables"); len(vars) != 50 {
				t.Fatalf("the full app has %d variables after a refused import", len(vars))
			}

			appID := str(c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": "shop"}).must(t, 201).data, "id")
			r := importInto(appID, reader).must(t, 201)
			vars := items(t, c.s.call(t, "GET", "/api/apps/"+appID, bootstrapToken, nil).must(t, 200).data, "variables")
			if len(vars) != 1 || str(vars[0], "name") != "visits" || str(vars[0], "type") != "integer" {
				t.Fatalf("a user variable imported into an app declared %v", vars)
			}
			readerID := str(r.data["workflow"].(map[string]any), "id")
			c.s.call(t, "POST", "/api/workflows/"+readerID+"/publish", bootstrapToken, nil).must(t, 201)
			out := decodeData(t, c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": readerID, "app_id": appID,
				"ext": cz{"user_id": "ann"}}).must(t, 200))
			if n, ok := out["visits"].(float64); !ok || n != 0 {
				t.Fatalf("an unset integer without a default reads %#v (want Coze's 0)", out["visits"])
			}
			c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": readerID, "app_id": fullID}).
				fails(t, 400, 4000, "app "+fullID+` has no variable "visits"`)

			appRef := cz{"type": "integer", "value": cz{"type": "ref", "content": cz{"source": "global_variable_app", "path": []string{"visits"}}}}
			both := czCanvas(t, []cz{czStart(), czEnd(czParam("a", appRef), czParam("u", userRef))}, czEdge("100001", "900001"))
			importInto(appID, both).fails(t, 400, 4000, `nodes[900001].data.inputs.inputParameters[1]: uses "visits" as a global_variable_user`)

			member, _ := secondUser(t, c.s, "apps-member@example.com")
			c.s.call(t, "POST", "/api/workspaces/"+c.ws+"/members", bootstrapToken, cz{"email": "apps-member@example.com", "role": "member"}).must(t, 201)
			theirs := str(c.s.call(t, "POST", "/api/apps", member, cz{"workspace_id": c.ws, "name": "theirs"}).must(t, 201).data, "id")
			c.s.call(t, "DELETE", "/api/apps/"+appID, member, nil).fails(t, 403, 4101, "only the app's creator or an admin")
			c.s.call(t, "DELETE", "/api/apps/"+theirs, member, nil).must(t, 200)
			c.s.call(t, "GET", "/api/apps/"+appID, member, nil).must(t, 200)
		})
	}
}
