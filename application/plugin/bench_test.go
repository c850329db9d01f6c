package plugin_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/pergola-ai/pergola/domain/plugin"
	"github.com/pergola-ai/pergola/infra/egress"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// BenchmarkInvoke measures what the platform adds to a plugin call: the
// same GET through the guarded client alone, then through a bound tool
// (plugin load, schema check, request building, auth, compaction, stats)
// on the draft and on a pinned version, against a local API, on SQLite
// and MariaDB.
func BenchmarkInvoke(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchInvoke(b, newEnv(b)) })
	b.Run("mariadb", func(b *testing.B) { benchInvoke(b, newEnvOn(b, sqlstore.Config{DSN: testenv.MySQL(b)})) })
}

func benchInvoke(b *testing.B, e *env) {
	pl := e.pets(b, "Pets", plugin.Auth{Type: plugin.AuthAPIKey, Name: "X-Api-Key", Key: "k"})
	_, err := e.svc.Publish(context.Background(), e.owner, pl.ID)
	mustNot(b, err)
	guard, err := egress.New(egress.Config{Allow: []string{"127.0.0.1"}})
	mustNot(b, err)
	client := guard.Client()
	url := e.api.srv.URL + "/v1/pets/7"
	b.Run("guarded GET alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("X-Api-Key", "k")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	for _, v := range []struct{ name, version string }{{"plugin tool, draft", ""}, {"plugin tool, pinned version", "1"}} {
		tl := e.tool(b, pl, "getPet", v.version)
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tl.InvokableRun(context.Background(), `{"petId":7}`); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
