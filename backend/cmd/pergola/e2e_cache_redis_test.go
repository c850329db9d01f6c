package main

import (
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestCacheRedisDownTwoProcesses runs two pergola processes on one MariaDB
// database and a private Redis, which is killed. With the invalidation
// bus gone, a token revoked on a cannot be announced to b: b must stop
// serving what it cached (its lease runs out, nothing being heard) and
// refuse the token within staleBound anyway. When Redis is back (empty),
// b subscribes again, flushes its caches, and a revocation reaches it
// through the bus as before.
func TestCacheRedisDownTwoProcesses(t *testing.T) {
	bin := buildPergola(t)
	rdb := privateRedis(t)
	env := map[string]string{"PERGOLA_DB_DSN": testenv.MySQL(t), "PERGOLA_REDIS_ADDR": rdb.addr(),
		"PERGOLA_SECRET_KEY": strings.Repeat("0123456789abcdef", 4), "PERGOLA_RATE_LIMIT": "0"}
	a := startProcess(t, bin, env)
	waitFor(t, "the first process to bootstrap the database", func() bool { st, _, _ := rawStatus(a.testServer, "/readyz"); return st == 200 })
	b := startProcess(t, bin, env)
	forgetConnections()
	c := &cacheCluster{a: a.testServer, b: b.testServer}

	pat := a.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "revoked while Redis is down"}).must(t, 201)
	c.warm(t, "GET", "/v1/users/me", str(pat.data, "token"), nil)
	rdb.kill()
	a.call(t, "DELETE", "/api/tokens/"+str(pat.data, "id"), bootstrapToken, nil).must(t, 200)
	c.refusedOnB(t, "the token revoked while Redis is down", func() reply {
		return b.call(t, "GET", "/v1/users/me", str(pat.data, "token"), nil)
	}, 401)

	rdb.start(t)
	for _, p := range []*process{a, b} {
		waitFor(t, "/readyz to answer 200 again", func() bool { st, _, _ := rawStatus(p.testServer, "/readyz"); return st == 200 })
	}
	pat = a.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "revoked once Redis is back"}).must(t, 201)
	c.warm(t, "GET", "/v1/users/me", str(pat.data, "token"), nil)
	a.call(t, "DELETE", "/api/tokens/"+str(pat.data, "id"), bootstrapToken, nil).must(t, 200)
	c.refusedOnB(t, "the token revoked once Redis is back", func() reply {
		return b.call(t, "GET", "/v1/users/me", str(pat.data, "token"), nil)
	}, 401)
}
