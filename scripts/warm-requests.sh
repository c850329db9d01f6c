#!/usr/bin/env bash
# Warm per-request cost: starts a fresh Pergola (embedded default, or
# MariaDB + Redis with --mariadb) and the fake model with no token latency,
# publishes a bot, and measures sequential warm requests with
# scripts/warmreq (p50/p99 of GET /v1/users/me, GET
# /v1/bot/get_online_info and non-streamed POST /v3/chat).
# Usage: scripts/warm-requests.sh [--mariadb] [N]
# PERGOLA_BIN names a prebuilt binary to measure instead of building one;
# PERGOLA_CACHE_TTL=0 measures with the in-process caches off.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
n=${2:-2000}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
bin=${PERGOLA_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$tmp/pergola" ./backend/cmd/pergola
  bin="$tmp/pergola"
fi
go build -o "$tmp/warmreq" ./scripts/warmreq

"$bin" fakellm --addr 127.0.0.1:18998 >"$tmp/fakellm.log" 2>&1 &
env=(PERGOLA_ADDR=127.0.0.1:18887 PERGOLA_DATA_DIR="$tmp/data" PERGOLA_BOOTSTRAP_TOKEN=pat_warm
  PERGOLA_RATE_LIMIT=0 PERGOLA_LOG_LEVEL=warn)
if [ -n "${PERGOLA_CACHE_TTL:-}" ]; then env+=(PERGOLA_CACHE_TTL="$PERGOLA_CACHE_TTL"); fi
if [ "$mode" = "--mariadb" ]; then
  db="pergola_warm_$$"
  mariadb -uroot -h127.0.0.1 -e "CREATE DATABASE $db"
  trap 'kill $(jobs -p) 2>/dev/null || true; mariadb -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db"
    redis-cli --scan --pattern "pergola_warm:$$:*" | xargs -r redis-cli del >/dev/null; rm -rf "$tmp"' EXIT
  env+=(PERGOLA_DB_DSN="root@tcp(127.0.0.1:3306)/$db" PERGOLA_REDIS_ADDR=127.0.0.1:6379
    PERGOLA_REDIS_PREFIX="pergola_warm:$$:" PERGOLA_SECRET_KEY="$("$bin" secret)")
fi
env "${env[@]}" "$bin" >"$tmp/server.log" 2>&1 &
for _ in $(seq 1 200); do curl -sf 127.0.0.1:18887/readyz >/dev/null && break; sleep 0.05; done

api() { curl -sf -H 'Authorization: Bearer pat_warm' -H 'Content-Type: application/json' "$@"; }
api -X POST 127.0.0.1:18887/api/admin/models -d '{"id":"fake","provider":"openai","base_url":"http://127.0.0.1:18998/v1","api_key":"k","model":"fake"}' >/dev/null
ws=$(api 127.0.0.1:18887/v1/workspaces | sed -E 's/.*"id":"([0-9]+)".*/\1/')
bot=$(api -X POST 127.0.0.1:18887/v1/bot/create -d "{\"space_id\":\"$ws\",\"name\":\"warm\",\"prompt_info\":{\"prompt\":\"Be brief.\"},\"model_info_config\":{\"model_id\":\"fake\"}}" | sed -E 's/.*"bot_id":"([0-9]+)".*/\1/')
api -X POST 127.0.0.1:18887/v1/bot/publish -d "{\"bot_id\":\"$bot\",\"connector_ids\":[\"1024\"]}" >/dev/null
"$tmp/warmreq" -base http://127.0.0.1:18887 -token pat_warm -bot "$bot" -n "$n"
