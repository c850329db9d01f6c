package plugin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"testing"
	"time"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// TestAdminDeleteIsAudited: a platform administrator deletes a plugin of a
// workspace it is not a member of, and one JSON log line names who did it
// and what was deleted; members, unknown plugins and built-ins are refused
// and leave no audit line.
func TestAdminDeleteIsAudited(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var logs bytes.Buffer
	svc := pluginapp.New(pluginapp.Deps{Store: e.db.Plugins(), Stats: e.db.Plugins(),
		Access: identityapp.New(e.db.Users(), e.db.Workspaces(), e.db.Tokens()), Now: time.Now, StatsEvery: time.Hour,
		Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	pl := e.pets(t, "Pets", plugin.Auth{})

	wantErr(t, svc.AdminDelete(ctx, e.owner, pl.ID), errs.ErrForbidden, "administrator")
	wantErr(t, svc.AdminDelete(ctx, e.admin, 987654), errs.ErrNotFound, "not found")
	all, _, err := svc.AdminList(ctx, e.admin, 0, identity.Page{Number: 1, Size: 200})
	mustNot(t, err)
	builtins := 0
	for _, a := range all {
		if a.Plugin.IsCatalog() {
			builtins++
			wantErr(t, svc.AdminDelete(ctx, e.admin, a.Plugin.ID), errs.ErrForbidden, "built-in plugin of the catalog")
		}
	}
	if builtins == 0 {
		t.Fatal("the catalog wrote no built-in plugin to try")
	}
	if logs.Len() != 0 {
		t.Fatalf("refused deletions logged %s", logs.String())
	}

	mustNot(t, svc.AdminDelete(ctx, e.admin, pl.ID))
	_, err = e.svc.Get(ctx, e.owner, pl.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")
	var line map[string]any
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
		t.Fatalf("want one JSON audit line, got %q", logs.String())
	}
	if line["audit"] != true || line["action"] != "plugin.delete" || line["admin_user_id"] != strconv.FormatInt(e.admin.UserID, 10) ||
		line["plugin_id"] != float64(pl.ID) || line["plugin_name"] != "Pets" || line["workspace_id"] != float64(e.ws.ID) {
		t.Errorf("audit line = %v", line)
	}
}
