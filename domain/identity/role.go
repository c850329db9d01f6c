package identity

import "github.com/pergola-ai/pergola/domain/errs"

// Role is what a member may do in a workspace.
type Role string

// Roles, from the most to the least powerful.
const (
	RoleOwner  Role = "owner"
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

func (r Role) rank() int {
	switch r {
	case RoleOwner:
		return 3
	case RoleAdmin:
		return 2
	case RoleMember:
		return 1
	}
	return 0
}

// AtLeast reports whether r grants at least what min grants.
func (r Role) AtLeast(min Role) bool { return r.rank() >= min.rank() && r.rank() > 0 }

// ParseRole validates a role name coming from a request.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if r.rank() == 0 {
		return "", errs.Invalid("role", "must be one of owner, admin, member; got %q", s)
	}
	return r, nil
}
