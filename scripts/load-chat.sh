#!/usr/bin/env bash
# Load test: N concurrent streaming chats through /v3/chat against a fresh
# Pergola on the embedded default (or MariaDB + Redis with --mariadb), with
# the fake LLM streaming 20 tokens 20 ms apart. Reports errors, latencies
# and the server's peak memory.  Usage: scripts/load-chat.sh [N] [--mariadb]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/pergola" ./backend/cmd/pergola
go build -o "$tmp/loadchat" ./scripts/loadchat

"$tmp/pergola" fakellm --addr 127.0.0.1:18999 --token-latency 20ms --chunk-chars 4 >"$tmp/fakellm.log" 2>&1 &
env=(PERGOLA_ADDR=127.0.0.1:18888 PERGOLA_DATA_DIR="$tmp/data" PERGOLA_BOOTSTRAP_TOKEN=pat_load
  PERGOLA_RATE_LIMIT=0 PERGOLA_LOG_LEVEL=warn)
if [ "${2:-}" = "--mariadb" ]; then
  db="pergola_load_$$"
  mariadb -uroot -h127.0.0.1 -e "CREATE DATABASE $db"
  trap 'kill $(jobs -p) 2>/dev/null || true; mariadb -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db"
    redis-cli --scan --pattern "pergola_load:$$:*" | xargs -r redis-cli del >/dev/null; rm -rf "$tmp"' EXIT
  env+=(PERGOLA_DB_DSN="root@tcp(127.0.0.1:3306)/$db" PERGOLA_REDIS_ADDR=127.0.0.1:6379
    PERGOLA_REDIS_PREFIX="pergola_load:$$:" PERGOLA_SECRET_KEY="$("$tmp/pergola" secret)")
fi
env "${env[@]}" "$tmp/pergola" >"$tmp/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do curl -sf 127.0.0.1:18888/readyz >/dev/null && break; sleep 0.05; done

api() { curl -sf -H 'Authorization: Bearer pat_load' -H 'Content-Type: application/json' "$@"; }
api -X POST 127.0.0.1:18888/api/admin/models -d '{"id":"fake","provider":"openai","base_url":"http://127.0.0.1:18999/v1","api_key":"k","model":"fake","capabilities":{"tools":true}}' >/dev/null
ws=$(api 127.0.0.1:18888/v1/workspaces | sed -E 's/.*"id":"([0-9]+)".*/\1/')
bot=$(api -X POST 127.0.0.1:18888/v1/bot/create -d "{\"space_id\":\"$ws\",\"name\":\"load\",\"prompt_info\":{\"prompt\":\"Be brief.\"},\"model_info_config\":{\"model_id\":\"fake\"}}" | sed -E 's/.*"bot_id":"([0-9]+)".*/\1/')
api -X POST 127.0.0.1:18888/v1/bot/publish -d "{\"bot_id\":\"$bot\",\"connector_ids\":[\"1024\"]}" >/dev/null
echo "idle server RSS: $(awk '/VmRSS/ {print int($2/1024)}' /proc/$pid/status) MB"
"$tmp/loadchat" -base http://127.0.0.1:18888 -token pat_load -bot "$bot" -n "$n" -pid "$pid"
