package main

import (
	"testing"
)

// TestAdminTablesRows: a platform administrator who is no member of Eve's
// workspace lists, adds, changes and deletes the rows of Eve's table
// through /api/admin/tables/{id}/rows, and Eve's own rows list shows each
// change. Eve cannot use the admin routes; unknown tables, bad rows and
// bad filters are refused with messages naming what to fix; draft rows
// stay apart from online ones. On SQLite and on MariaDB.
func TestAdminTablesRows(t *testing.T) {
	for _, b := range tableBackends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "eve@example.com", "name": "Eve", "password": "eve-password-1"}).must(t, 201)
			eve := str(s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "eve-password-1"}).must(t, 200).data, "token")
			ws := str(s.call(t, "POST", "/api/workspaces", eve, map[string]any{"name": "Eve's team"}).must(t, 201).data, "id")
			id := str(s.call(t, "POST", "/api/tables", eve, map[string]any{"workspace_id": ws, "name": "orders", "mode": "shared",
				"fields": []map[string]any{{"name": "item", "type": "text", "required": true}, {"name": "qty", "type": "integer"}},
			}).must(t, 201).data, "id")
			own, path := "/api/tables/"+id+"/rows", "/api/admin/tables/"+id+"/rows"
			// The administrator is no member of Eve's workspace.
			s.call(t, "GET", own, bootstrapToken, nil).fails(t, 404, 4200, "not found")

			s.call(t, "GET", path, eve, nil).fails(t, 403, 4101, "administrator")
			s.call(t, "POST", path, eve, map[string]any{"rows": []map[string]any{{"values": map[string]any{"item": "x"}}}}).fails(t, 403, 4101, "administrator")
			s.call(t, "GET", "/api/admin/tables/987654/rows", bootstrapToken, nil).fails(t, 404, 4200, "table 987654 not found")
			s.call(t, "POST", path, bootstrapToken, map[string]any{"rows": []map[string]any{{"values": map[string]any{"qty": 1}}}}).
				fails(t, 400, 4000, "rows[0].item: is required")
			s.call(t, "POST", path, bootstrapToken, map[string]any{"rows": []map[string]any{{"values": map[string]any{"item": "x", "qty": "many"}}}}).
				fails(t, 400, 4000, "rows[0].qty")
			s.call(t, "GET", path+"?filter=qty:bigger:3", bootstrapToken, nil).fails(t, 400, 4000, "filter[0]")

			added := s.call(t, "POST", path, bootstrapToken, map[string]any{"rows": []map[string]any{
				{"values": map[string]any{"item": "apple", "qty": 3}}, {"values": map[string]any{"item": "pear", "qty": 5}},
			}}).must(t, 201)
			ids, _ := added.data["ids"].([]any)
			if len(ids) != 2 {
				t.Fatalf("added = %v", added.data)
			}
			page := s.call(t, "GET", path+"?filter=qty:ge:4", bootstrapToken, nil).must(t, 200)
			if list := items(t, page.data, "items"); page.data["total"] != float64(1) || len(list) != 1 || list[0]["values"].(map[string]any)["item"] != "pear" {
				t.Errorf("admin rows with qty >= 4 = %v", page.data)
			}
			s.call(t, "PATCH", path+"/"+ids[0].(string), bootstrapToken, map[string]any{"values": map[string]any{"qty": "ten"}}).fails(t, 400, 4000, "values.qty")
			s.call(t, "PATCH", path+"/"+ids[0].(string), bootstrapToken, map[string]any{"values": map[string]any{"qty": 9}}).must(t, 200)
			s.call(t, "DELETE", path+"/"+ids[1].(string), bootstrapToken, nil).must(t, 200)
			s.call(t, "DELETE", path+"/"+ids[1].(string), bootstrapToken, nil).fails(t, 404, 4200, "not found")
			s.call(t, "DELETE", path+"/"+ids[0].(string), eve, nil).fails(t, 403, 4101, "administrator")

			rows := items(t, s.call(t, "GET", own, eve, nil).must(t, 200).data, "items")
			if len(rows) != 1 || str(rows[0], "id") != ids[0].(string) || rows[0]["values"].(map[string]any)["qty"] != float64(9) {
				t.Errorf("Eve's rows after the administrator's changes = %v", rows)
			}
			s.call(t, "POST", path, bootstrapToken, map[string]any{"data": "draft", "rows": []map[string]any{{"values": map[string]any{"item": "plum"}}}}).must(t, 201)
			if n := s.call(t, "GET", own+"?data=draft", eve, nil).must(t, 200).data["total"]; n != float64(1) {
				t.Errorf("Eve's draft rows = %v, want the administrator's 1", n)
			}
			if n := s.call(t, "GET", path, bootstrapToken, nil).must(t, 200).data["total"]; n != float64(1) {
				t.Errorf("online rows = %v; the draft row must not be among them", n)
			}
			s.call(t, "GET", path+"?data=live", bootstrapToken, nil).fails(t, 400, 4000, "data")
		})
	}
}
