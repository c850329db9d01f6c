#!/usr/bin/env bash
# Workflow runs over HTTP: a fresh Pergola on the embedded default (or
# MariaDB + Redis with --mariadb) runs chains of 2, 20 and 100 nodes
# synchronously through /v1/workflow/run; scripts/loadwf reports the p50,
# p99 and req/s of each, the HTTP cost per node and the engine's cost per
# node in process, measured in the same run.
# Usage: scripts/bench-workflow.sh [--mariadb] [loadwf flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
mariadb=0
if [ "${1:-}" = "--mariadb" ]; then mariadb=1; shift; fi
tmp=$(mktemp -d)
port=18890
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/pergola" ./backend/cmd/pergola
go build -o "$tmp/loadwf" ./scripts/loadwf

env=(PERGOLA_ADDR=127.0.0.1:$port PERGOLA_DATA_DIR="$tmp/data" PERGOLA_BOOTSTRAP_TOKEN=pat_load
  PERGOLA_RATE_LIMIT=0 PERGOLA_LOG_LEVEL=warn)
if [ "$mariadb" = 1 ]; then
  db="pergola_wfload_$$"
  mariadb -uroot -h127.0.0.1 -e "CREATE DATABASE $db"
  trap 'cleanup; mariadb -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db"
    redis-cli --scan --pattern "pergola_wfload:$$:*" | xargs -r redis-cli del >/dev/null' EXIT
  env+=(PERGOLA_DB_DSN="root@tcp(127.0.0.1:3306)/$db" PERGOLA_REDIS_ADDR=127.0.0.1:6379
    PERGOLA_REDIS_PREFIX="pergola_wfload:$$:" PERGOLA_SECRET_KEY="$("$tmp/pergola" secret)")
fi
env "${env[@]}" "$tmp/pergola" >"$tmp/server.log" 2>&1 &
for _ in $(seq 1 200); do curl -sf 127.0.0.1:$port/readyz >/dev/null && break; sleep 0.05; done
"$tmp/loadwf" -base http://127.0.0.1:$port -token pat_load "$@" || { tail -20 "$tmp/server.log"; exit 1; }
