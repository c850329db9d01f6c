package main

import (
	"strings"
	"testing"
)

// TestTablesManagement covers the builders' and administrators' routes:
// definitions (a schema change keeps the other columns' data), rows with
// filters and paging, CSV import with a per-line report and export, the
// SQL console, and access from another workspace.
func TestTablesManagement(t *testing.T) {
	for _, b := range tableBackends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			admin := bootstrapToken
			ws := str(items(t, s.call(t, "GET", "/v1/workspaces", admin, nil).must(t, 200).data, "workspaces")[0], "id")
			created := s.call(t, "POST", "/api/tables", admin, map[string]any{"workspace_id": ws, "name": "orders", "mode": "shared",
				"fields": []map[string]any{{"name": "item", "type": "text", "required": true}, {"name": "qty", "type": "integer"}, {"name": "paid", "type": "boolean"}},
			}).must(t, 201)
			id := str(created.data, "id")
			base := "/api/tables/" + id
			s.call(t, "POST", "/api/tables", admin, map[string]any{"workspace_id": ws, "name": "ORDERS", "fields": []map[string]any{{"name": "x", "type": "text"}}}).
				fails(t, 409, 4300, "already has a table named ORDERS")
			s.call(t, "POST", "/api/tables", admin, map[string]any{"workspace_id": ws, "name": "bad", "fields": []map[string]any{{"name": "id", "type": "text"}}}).
				fails(t, 400, 4000, "fields[0].name")
			s.call(t, "POST", "/api/tables", admin, map[string]any{"workspace_id": ws, "name": "x", "feilds": []any{}}).fails(t, 400, 4000, "feilds")

			// Rows: add, filter, page, change, delete.
			added := s.call(t, "POST", base+"/rows", admin, map[string]any{"rows": []map[string]any{
				{"values": map[string]any{"item": "apple", "qty": 3, "paid": true}},
				{"values": map[string]any{"item": "pear", "qty": "5"}},
				{"values": map[string]any{"item": "plum"}},
			}}).must(t, 201)
			ids, _ := added.data["ids"].([]any)
			if len(ids) != 3 {
				t.Fatalf("added = %v", added.data)
			}
			s.call(t, "POST", base+"/rows", admin, map[string]any{"rows": []map[string]any{{"values": map[string]any{"qty": 1}}}}).
				fails(t, 400, 4000, "rows[0].item: is required")
			page := s.call(t, "GET", base+"/rows?filter=qty:ge:3&order=desc&page_size=1", admin, nil).must(t, 200)
			if list := items(t, page.data, "items"); page.data["total"].(float64) != 2 || len(list) != 1 || list[0]["values"].(map[string]any)["item"] != "pear" {
				t.Errorf("qty >= 3, newest first, one per page = %v", page.data)
			}
			s.call(t, "GET", base+"/rows?filter=qty:bigger:3", admin, nil).fails(t, 400, 4000, "filter[0]")
			s.call(t, "PATCH", base+"/rows/"+ids[2].(string), admin, map[string]any{"values": map[string]any{"paid": false, "qty": 9}}).must(t, 200)
			s.call(t, "DELETE", base+"/rows/"+ids[0].(string), admin, nil).must(t, 200)
			s.call(t, "DELETE", base+"/rows/"+ids[0].(string), admin, nil).fails(t, 404, 4200, "not found")

			// A schema change: rename item, drop paid, add note; the rest stays.
			s.call(t, "PATCH", base, admin, map[string]any{"fields": []map[string]any{
				{"id": 1, "name": "product", "required": true}, {"id": 2, "name": "qty"}, {"name": "note", "type": "text"},
			}}).must(t, 200)
			s.call(t, "PATCH", base, admin, map[string]any{"fields": []map[string]any{{"id": 2, "name": "qty", "type": "text"}}}).
				fails(t, 400, 4000, "cannot change")
			rows := items(t, s.call(t, "GET", base+"/rows", admin, nil).must(t, 200).data, "items")
			if v := rows[1]["values"].(map[string]any); len(rows) != 2 || v["product"] != "plum" || v["qty"] != float64(9) || v["note"] != nil || len(v) != 3 {
				t.Errorf("rows after the schema change = %v", rows)
			}

			// CSV: import with a report per line, export.
			status, _, body := s.raw(t, "POST", base+"/import", admin, "product,qty\nfig,2\n,4\nkiwi,many\nlime,\n")
			if status != 200 || !strings.Contains(body, `"inserted":2`) || !strings.Contains(body, `{"line":3,"message":"line 3.product: is required"}`) ||
				!strings.Contains(body, `"line":4`) {
				t.Errorf("import answered %d %s", status, body)
			}
			status, ctype, csv := s.raw(t, "GET", base+"/export", admin, "")
			if status != 200 || !strings.HasPrefix(ctype, "text/csv") || !strings.HasPrefix(csv, "id,user_id,product,qty,note,created_at,updated_at\n") ||
				strings.Count(csv, "\n") != 5 || !strings.Contains(csv, ",lime,,,") {
				t.Errorf("export answered %d %s:\n%s", status, ctype, csv)
			}

			// The SQL console runs statements as the tool would.
			res := s.call(t, "POST", base+"/sql", admin, map[string]any{"sql": "SELECT COUNT(*) AS n FROM orders WHERE qty > 1"}).must(t, 200)
			if rows, _ := res.data["rows"].([]any); len(rows) != 1 || rows[0].([]any)[0] != float64(3) {
				t.Errorf("console count = %v", res.data)
			}
			s.call(t, "POST", base+"/sql", admin, map[string]any{"sql": "SELECT * FROM users"}).fails(t, 400, 4000, "only table orders")
			s.call(t, "POST", base+"/sql", admin, map[string]any{"sql": "DELETE FROM orders", "data": "draft"}).must(t, 200)

			// The administrators' list shows sizes; another workspace sees nothing.
			list := s.call(t, "GET", "/api/admin/tables", admin, nil).must(t, 200)
			all := items(t, list.data, "items")
			if len(all) != 1 || all[0]["online_rows"] != float64(4) || all[0]["draft_rows"] != float64(0) {
				t.Errorf("admin list = %v", all)
			}
			other := s.call(t, "POST", "/api/admin/users", admin, map[string]any{"email": "eve@example.com", "name": "Eve", "password": "eve-password-1"}).must(t, 201)
			_ = other
			login := s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "eve-password-1"}).must(t, 200)
			eve := str(login.data, "token")
			s.call(t, "GET", base, eve, nil).fails(t, 404, 4200, "table "+id+" not found")
			s.call(t, "GET", base+"/rows", eve, nil).fails(t, 404, 4200, "not found")
			s.call(t, "GET", "/api/admin/tables", eve, nil).fails(t, 403, 4101, "administrator")

			s.call(t, "DELETE", base, admin, nil).must(t, 200)
			s.call(t, "GET", base, admin, nil).fails(t, 404, 4200, "not found")
		})
	}
}

// TestTablesNeedTheirOwnDatabaseOnMySQL shows that without
// PERGOLA_TABLES_DSN a MySQL deployment keeps no rows beside the
// platform's data: tables answer 503 and bots cannot bind them.
func TestTablesNeedTheirOwnDatabaseOnMySQL(t *testing.T) {
	for _, b := range backends() {
		if b.name == "sqlite" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
			s.call(t, "POST", "/api/tables", bootstrapToken, map[string]any{"workspace_id": ws, "name": "notes",
				"fields": []map[string]any{{"name": "text", "type": "text"}}}).fails(t, 503, 5030, "PERGOLA_TABLES_DSN")
		})
	}
}
