#!/usr/bin/env bash
# PGlite (PostgreSQL 18 in WASM) with pgvector on a free loopback port, for
# the pgvector knowledge index tests (infra/knowledgestore/pgvector).
#
#   scripts/pglite.sh start   installs scripts/pglite (npm ci), starts the
#                             server in the background, waits until it
#                             answers and prints
#                             export PERGOLA_TEST_PGVECTOR_DSN='...'
#                             (so: eval "$(scripts/pglite.sh start)")
#   scripts/pglite.sh stop    stops the server it started
#
# Sourced, it defines pglite_start (which exports PERGOLA_TEST_PGVECTOR_DSN)
# and pglite_stop. PGlite is one PostgreSQL session shared by all its
# connections, so the DSN asks pgx for a single connection, and for
# unnamed statements (default_query_exec_mode=exec): a statement pgx
# prepared on a closed connection lives on in that session, and the next
# connection preparing the same one would fail with 42P05.

PGLITE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pglite"
PGLITE_STATE="${PGLITE_STATE:-${TMPDIR:-/tmp}/pergola-pglite-$(id -u)-${PERGOLA_TEST_RUN:-local}}"

pglite_log() { printf 'pglite: %s\n' "$*" >&2; }

# pglite_free_port prints a loopback port nobody listens on.
pglite_free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

pglite_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pglite_install() {
  if [ ! -x "$PGLITE_DIR/node_modules/.bin/pglite-server" ]; then
    pglite_log "installing (npm ci in scripts/pglite)"
    (cd "$PGLITE_DIR" && npm ci --no-audit --no-fund --loglevel=error >&2) || return 1
  fi
}

# pglite_start starts a server and exports PERGOLA_TEST_PGVECTOR_DSN.
pglite_start() {
  command -v node >/dev/null 2>&1 || { pglite_log "node is not installed"; return 1; }
  pglite_install || return 1
  mkdir -p "$PGLITE_STATE"
  local port log pid
  port=$(pglite_free_port) || return 1
  log="$PGLITE_STATE/server-$port.log"
  (cd "$PGLITE_DIR" && exec node_modules/.bin/pglite-server -h 127.0.0.1 -p "$port" \
    -e @electric-sql/pglite-pgvector:vector -m 4) >"$log" 2>&1 &
  pid=$!
  echo "$pid" >"$PGLITE_STATE/pid"
  for _ in $(seq 1 120); do
    if pglite_answers "$port"; then
      export PERGOLA_TEST_PGVECTOR_DSN="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable&pool_max_conns=1&default_query_exec_mode=exec"
      pglite_log "listening on 127.0.0.1:$port (pid $pid)"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  pglite_log "did not start; its log:"
  cat "$log" >&2
  pglite_stop
  return 1
}

# pglite_stop stops the server pglite_start started, if it runs.
pglite_stop() {
  local pidfile="$PGLITE_STATE/pid" pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  rm -f "$pidfile"
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PGLITE_STATE"/server-*.log
  rmdir "$PGLITE_STATE" 2>/dev/null || true
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-}" in
    start) pglite_start && echo "export PERGOLA_TEST_PGVECTOR_DSN='$PERGOLA_TEST_PGVECTOR_DSN'" ;;
    stop) pglite_stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
  esac
fi
