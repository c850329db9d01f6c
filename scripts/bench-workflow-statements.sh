#!/usr/bin/env bash
# Counts the SQL statements of one warm synchronous run of a 2-node
# workflow through POST /v1/workflow/run, from the server's debug log (on
# the embedded SQLite), and prints them.
# Usage: scripts/bench-workflow-statements.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
port=18893
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/pergola" ./backend/cmd/pergola
PERGOLA_ADDR=127.0.0.1:$port PERGOLA_DATA_DIR="$tmp/data" PERGOLA_BOOTSTRAP_TOKEN=pat_count PERGOLA_RATE_LIMIT=0 \
  PERGOLA_LOG_LEVEL=debug "$tmp/pergola" >"$tmp/log" 2>&1 &
for _ in $(seq 1 200); do curl -sf 127.0.0.1:$port/readyz >/dev/null && break; sleep 0.05; done
api() { curl -sf -H 'Authorization: Bearer pat_count' -H 'Content-Type: application/json' "$@"; }
ws=$(api 127.0.0.1:$port/v1/workspaces | sed -E 's/.*"id":"([0-9]+)".*/\1/')
def='{"nodes":[{"id":"start","type":"start","outputs":[{"name":"name","type":"string","required":true}]},
  {"id":"end","type":"end","inputs":{"out":{"ref":{"node":"start","path":"name"}}}}],"edges":[{"from":"start","to":"end"}]}'
id=$(api -X POST 127.0.0.1:$port/api/workflows -d "{\"workspace_id\":\"$ws\",\"name\":\"two\",\"definition\":$def}" |
  sed -E 's/.*"id":"([0-9]+)".*/\1/')
api -X POST 127.0.0.1:$port/api/workflows/"$id"/publish >/dev/null
run() { api -X POST 127.0.0.1:$port/v1/workflow/run -d "{\"workflow_id\":\"$id\",\"parameters\":{\"name\":\"Ada\"}}" >/dev/null; }
for _ in 1 2 3; do run; done # warm: compiled version, caches
sleep 0.3
before=$(grep -c '"msg":"sql"' "$tmp/log" || true)
run
sleep 0.3
after=$(grep -c '"msg":"sql"' "$tmp/log" || true)
echo "statements of one warm 2-node run: $((after - before))"
grep '"msg":"sql"' "$tmp/log" | tail -n $((after - before)) | sed -E 's/.*"sql":"([^"]{0,100}).*/  \1/'
