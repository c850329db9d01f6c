package main

import (
	"testing"
)

// TestAdminDeletesAnyPlugin: a platform administrator who is not a member
// of a user's workspace deletes that workspace's plugin through
// DELETE /api/admin/plugins/{id}; the owner no longer finds it. The owner
// cannot use the admin route, built-ins and unknown ids are refused with
// messages that say why. On SQLite and on MariaDB with Redis.
func TestAdminDeletesAnyPlugin(t *testing.T) {
	api := newWeatherAPI(t)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}).env(t))
			s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "eve@example.com", "name": "Eve", "password": "eve-password-1"}).must(t, 201)
			eve := str(s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "eve-password-1"}).must(t, 200).data, "token")
			ws := str(s.call(t, "POST", "/api/workspaces", eve, map[string]any{"name": "Eve's team"}).must(t, 201).data, "id")
			id := str(s.call(t, "POST", "/api/plugins", eve, map[string]any{"workspace_id": ws, "openapi": weatherDoc,
				"server_url": api.URL + "/v1"}).must(t, 201).data, "id")
			// The administrator is no member of Eve's workspace.
			s.call(t, "GET", "/api/plugins/"+id, bootstrapToken, nil).fails(t, 404, 4200, "not found")

			path := "/api/admin/plugins/" + id
			s.call(t, "DELETE", path, eve, nil).fails(t, 403, 4101, "administrator")
			s.call(t, "DELETE", "/api/admin/plugins/abc", bootstrapToken, nil).fails(t, 400, 4000, "id")
			s.call(t, "DELETE", "/api/admin/plugins/987654", bootstrapToken, nil).fails(t, 404, 4200, "not found")
			all := items(t, s.call(t, "GET", "/api/admin/plugins?page_size=200", bootstrapToken, nil).must(t, 200).data, "items")
			builtin := ""
			for _, p := range all {
				if str(p, "scope") == "catalog" {
					builtin = str(p, "id")
					break
				}
			}
			if builtin == "" {
				t.Fatalf("no built-in plugin in the admin list %v", all)
			}
			s.call(t, "DELETE", "/api/admin/plugins/"+builtin, bootstrapToken, nil).fails(t, 403, 4101, "disable it with PATCH")

			s.call(t, "DELETE", path, bootstrapToken, nil).must(t, 200)
			s.call(t, "GET", "/api/plugins/"+id, eve, nil).fails(t, 404, 4200, "not found")
			s.call(t, "GET", path, bootstrapToken, nil).fails(t, 404, 4200, "not found")
			s.call(t, "DELETE", path, bootstrapToken, nil).fails(t, 404, 4200, "not found")
			s.call(t, "GET", "/api/admin/plugins/"+builtin, bootstrapToken, nil).must(t, 200)
		})
	}
}
