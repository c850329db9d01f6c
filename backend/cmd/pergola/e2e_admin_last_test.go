package main

import "testing"

// TestLastAdministratorIsKept: the last enabled platform administrator
// cannot take their own role or disable themselves (409 saying to make
// another administrator first), which would leave no one to manage users
// and models; once another administrator exists, they can. On SQLite and
// MariaDB+Redis.
func TestLastAdministratorIsKept(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			me := str(s.call(t, "GET", "/api/me", bootstrapToken, nil).must(t, 200).data, "id")
			self := "/api/admin/users/" + me
			const want = "is the last enabled platform administrator; make another user an administrator first"
			s.call(t, "PATCH", self, bootstrapToken, map[string]any{"is_admin": false}).fails(t, 409, 4300, want)
			s.call(t, "PATCH", self, bootstrapToken, map[string]any{"disabled": true}).fails(t, 409, 4300, want)
			other := str(s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "second@example.com",
				"name": "Second", "password": "second-password", "is_admin": true}).must(t, 201).data["user"].(map[string]any), "id")
			s.call(t, "PATCH", "/api/admin/users/"+other, bootstrapToken, map[string]any{"disabled": true}).must(t, 200)
			s.call(t, "PATCH", self, bootstrapToken, map[string]any{"is_admin": false}).fails(t, 409, 4300, want)
			s.call(t, "PATCH", "/api/admin/users/"+other, bootstrapToken, map[string]any{"disabled": false}).must(t, 200)
			if u := s.call(t, "PATCH", self, bootstrapToken, map[string]any{"is_admin": false}).must(t, 200); u.data["is_admin"] != false {
				t.Fatalf("demoted with another administrator: %v", u.data)
			}
		})
	}
}
