#!/usr/bin/env bash
# Measures how long `pergola serve` takes to answer /readyz and its resident
# memory when idle, on the embedded default (SQLite) and, when reachable, on
# MariaDB + Redis. Usage: scripts/measure-startup.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
bin=$(mktemp -d)/pergola
go build -o "$bin" ./backend/cmd/pergola
port=18901

ms_now() { date +%s%N | cut -b1-13; }

measure() { # $1 label, then env assignments
  local label=$1; shift
  local total=0 best=999999
  for _ in $(seq 1 "$runs"); do
    local data; data=$(mktemp -d)
    local start; start=$(ms_now)
    env "$@" PERGOLA_DATA_DIR="$data" PERGOLA_ADDR=127.0.0.1:$port PERGOLA_BOOTSTRAP_TOKEN=pat_measure \
      PERGOLA_LOG_LEVEL=warn "$bin" & local pid=$!
    until curl -sf 127.0.0.1:$port/readyz >/dev/null; do sleep 0.005; done
    local took=$(( $(ms_now) - start ))
    total=$((total + took)); [ "$took" -lt "$best" ] && best=$took
    for _ in $(seq 1 200); do curl -s -H 'Authorization: Bearer pat_measure' 127.0.0.1:$port/v1/users/me >/dev/null; done
    sleep 1
    local rss; rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
    kill "$pid"; wait "$pid" || true
    rm -rf "$data"
  done
  printf '%-16s ready in %d ms (mean of %d cold starts, best %d ms, migrations and bootstrap included); idle RSS after 200 requests %d MB\n' \
    "$label" $((total / runs)) "$runs" "$best" $((rss / 1024))
}

measure sqlite
if (exec 3<>/dev/tcp/127.0.0.1/3306) 2>/dev/null && (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  db="pergola_measure_$$"
  mariadb -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db" 2>/dev/null || true
  # Each run needs an empty database for the bootstrap; drop it between runs.
  runs_db=$runs; runs=1
  for _ in $(seq 1 "$runs_db"); do
    mariadb -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
    measure mariadb+redis PERGOLA_DB_DSN="root@tcp(127.0.0.1:3306)/$db" PERGOLA_REDIS_ADDR=127.0.0.1:6379 \
      PERGOLA_REDIS_PREFIX="pergola_measure:$$:" PERGOLA_SECRET_KEY="$("$bin" secret)"
    redis-cli -h 127.0.0.1 --scan --pattern "pergola_measure:$$:*" | xargs -r redis-cli -h 127.0.0.1 del >/dev/null
  done
  mariadb -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db"
fi
