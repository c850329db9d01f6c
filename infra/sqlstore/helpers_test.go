package sqlstore

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// backend opens a fresh, empty database of one kind.
type backend struct {
	name string
	cfg  func(t *testing.T) Config
}

func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) Config {
			return Config{SQLitePath: filepath.Join(t.TempDir(), "data", "pergola.db")}
		}},
		{"mariadb", func(t *testing.T) Config { return Config{DSN: testenv.MySQL(t)} }},
	}
}

// forEachBackend runs suite against a migrated SQLite database and a
// migrated MariaDB database, as subtests "sqlite" and "mariadb".
func forEachBackend(t *testing.T, suite func(t *testing.T, db *DB)) {
	t.Helper()
	forEachEmptyBackend(t, func(t *testing.T, cfg Config) {
		db := openDB(t, cfg)
		if _, err := db.Migrate(context.Background()); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		suite(t, db)
	})
}

// forEachEmptyBackend is forEachBackend for suites that open the database
// themselves, unmigrated.
func forEachEmptyBackend(t *testing.T, suite func(t *testing.T, cfg Config)) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { suite(t, b.cfg(t)) })
	}
}

func testCipher(t *testing.T) *secret.Box {
	t.Helper()
	box, err := secret.NewBox(bytes.Repeat([]byte{7}, secret.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// openDB opens cfg with the test cipher and closes it when the test ends.
func openDB(t *testing.T, cfg Config) *DB {
	t.Helper()
	if cfg.Cipher == nil {
		cfg.Cipher = testCipher(t)
	}
	db, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// wantErr fails the test unless err matches target and mentions text.
func wantErr(t *testing.T, err, target error, text string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error %q does not mention %q", err, text)
	}
}

func mustNot(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newUser stores a user with the given e-mail.
func newUser(t *testing.T, db *DB, email string) *identity.User {
	t.Helper()
	u := &identity.User{Email: email, Name: strings.Split(email, "@")[0]}
	mustNot(t, db.Users().CreateUser(context.Background(), u))
	return u
}

// newWorkspace stores a team workspace owned by owner.
func newWorkspace(t *testing.T, db *DB, name string, owner int64) *identity.Workspace {
	t.Helper()
	ws := &identity.Workspace{Name: name, Kind: identity.WorkspaceTeam, OwnerID: owner}
	mustNot(t, db.Workspaces().CreateWorkspace(context.Background(), ws))
	return ws
}

var errFromFn = errors.New("fn refused the change")

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmpopts.EquateEmpty()
