#!/usr/bin/env bash
# Load test of the signed webhook channel in callback mode: N signed events
# (plus 10% retried event ids) from concurrent senders against a fresh
# Pergola on the embedded default (or MariaDB + Redis with --mariadb), with
# the fake LLM streaming 5 ms apart. Reports acknowledgement latency and
# rate, event-to-callback latency and rate, duplicates, errors and the
# server's peak memory.  Usage: scripts/load-channel.sh [N] [--mariadb]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
tmp=$(mktemp -d)
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  if [ -n "${db:-}" ]; then
    mariadb -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db"
    redis-cli --scan --pattern "pergola_loadch:$$:*" | xargs -r redis-cli del >/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/pergola" ./backend/cmd/pergola
go build -o "$tmp/loadchannel" ./scripts/loadchannel

"$tmp/pergola" fakellm --addr 127.0.0.1:18998 --token-latency 5ms --chunk-chars 4 >"$tmp/fakellm.log" 2>&1 &
env=(PERGOLA_ADDR=127.0.0.1:18887 PERGOLA_DATA_DIR="$tmp/data" PERGOLA_BOOTSTRAP_TOKEN=pat_load
  PERGOLA_RATE_LIMIT=0 PERGOLA_LOG_LEVEL=warn PERGOLA_EGRESS_ALLOW=127.0.0.1
  PERGOLA_CHANNEL_WORKERS="${PERGOLA_CHANNEL_WORKERS:-8}")
if [ "${2:-}" = "--mariadb" ]; then
  db="pergola_loadch_$$"
  mariadb -uroot -h127.0.0.1 -e "CREATE DATABASE $db"
  env+=(PERGOLA_DB_DSN="root@tcp(127.0.0.1:3306)/$db" PERGOLA_REDIS_ADDR=127.0.0.1:6379
    PERGOLA_REDIS_PREFIX="pergola_loadch:$$:" PERGOLA_SECRET_KEY="$("$tmp/pergola" secret)")
fi
env "${env[@]}" "$tmp/pergola" >"$tmp/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do curl -sf 127.0.0.1:18887/readyz >/dev/null && break; sleep 0.05; done

api() { curl -sf -H 'Authorization: Bearer pat_load' -H 'Content-Type: application/json' "$@"; }
secret=$(head -c 24 /dev/urandom | base64 | tr -d '/+=' | head -c 32)
api -X POST 127.0.0.1:18887/api/admin/models -d '{"id":"fake","provider":"openai","base_url":"http://127.0.0.1:18998/v1","api_key":"k","model":"fake","capabilities":{"tools":true}}' >/dev/null
ws=$(api 127.0.0.1:18887/v1/workspaces | sed -E 's/.*"id":"([0-9]+)".*/\1/')
bot=$(api -X POST 127.0.0.1:18887/api/bots -d "{\"workspace_id\":\"$ws\",\"name\":\"load\",\"model\":{\"model_id\":\"fake\"}}" | jq -r .data.id)
ch=$(api -X POST "127.0.0.1:18887/api/bots/$bot/channels" -d "{\"kind\":\"webhook\",\"settings\":{\"secret\":\"$secret\",\"callback_url\":\"http://127.0.0.1:18997/cb\"}}" | jq -r .data.id)
api -X POST "127.0.0.1:18887/api/bots/$bot/publish" -d "{\"connector_ids\":[\"$ch\"]}" >/dev/null
echo "idle server RSS: $(awk '/VmRSS/ {print int($2/1024)}' /proc/$pid/status) MB"
"$tmp/loadchannel" -base http://127.0.0.1:18887 -channel "$ch" -secret "$secret" -callback 127.0.0.1:18997 -n "$n" -pid "$pid" || {
  code=$?; tail -n 20 "$tmp/server.log" >&2; exit $code; }
