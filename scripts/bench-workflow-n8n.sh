#!/usr/bin/env bash
# Workflow runs over HTTP, Pergola beside n8n: a fresh Pergola (built here;
# with --mariadb on a fresh MariaDB database and Redis prefix, dropped
# afterwards) and n8n (installed from the npm registry into
# ~/.cache/pergola-bench/n8n-<version> on first use, then reused; started
# on a temporary N8N_USER_FOLDER, its own SQLite, default settings) run the
# same 2-node workflow: Start → End echoing an input on Pergola
# (POST /v1/workflow/run), Webhook → Respond to Webhook on n8n. The bench
# program loads both at the same concurrency for the same time and prints
# both rates and their ratio, then the HTTP cost per node from chains of
# 2, 20 and 100 nodes beside the engine's, and the engine's own benchmark.
# --no-n8n measures Pergola alone; --profile adds CPU profiles.
# Usage: scripts/bench-workflow-n8n.sh [--mariadb] [--no-n8n] [--profile] [bench flags: -c 8 -duration 10s ...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/lib.sh
n8n_version=2.8.4 # the newest n8n whose engines accept Node 20, Debian's
mariadb=0 with_n8n=1 profile=0
while [ $# -gt 0 ]; do
  case $1 in
    --mariadb) mariadb=1; shift ;;
    --no-n8n) with_n8n=0; shift ;;
    --profile) profile=1; shift ;;
    *) break ;;
  esac
done

# install_n8n installs n8n into the cache folder unless it is there. One
# of n8n's dependencies, xlsx, is a tarball on SheetJS's own server, out of
# the registry's reach: the override takes xlsx 0.18.5 from the registry
# instead (only the spreadsheet nodes use it; this workflow has none).
install_n8n() {
  n8n_dir=${PERGOLA_BENCH_CACHE:-$HOME/.cache/pergola-bench}/n8n-$n8n_version
  [ -x "$n8n_dir/node_modules/.bin/n8n" ] && return 0
  echo "installing n8n@$n8n_version into $n8n_dir (once; several minutes)" >&2
  mkdir -p "$n8n_dir"
  echo '{"name":"pergola-bench-n8n","private":true,"overrides":{"xlsx":"0.18.5"}}' >"$n8n_dir/package.json"
  (cd "$n8n_dir" && npm install "n8n@$n8n_version" --allow-scripts=sqlite3 --no-audit --no-fund --loglevel=error >"$n8n_dir/install.log" 2>&1) || {
    echo "npm install n8n@$n8n_version failed; the end of $n8n_dir/install.log:" >&2
    tail -20 "$n8n_dir/install.log" >&2
    return 1
  }
}

# start_n8n imports the echo workflow, activates it and starts n8n; sets
# n8n_url (the webhook) and n8n_pid.
start_n8n() {
  local port broker; port=$(free_port 19500); broker=$(free_port $((port + 1)))
  n8n_env=(N8N_USER_FOLDER="$tmp/n8n" N8N_PORT=$port N8N_LISTEN_ADDRESS=127.0.0.1 N8N_LOG_LEVEL=info
    N8N_DIAGNOSTICS_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false N8N_PERSONALIZATION_ENABLED=false
    N8N_TEMPLATES_ENABLED=false N8N_HIRING_BANNER_ENABLED=false N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=true
    N8N_RUNNERS_BROKER_PORT=$broker N8N_PUBLIC_API_DISABLED=true)
  mkdir -p "$tmp/n8n"
  cp scripts/bench/n8n-echo.json "$tmp/n8n-echo.json"
  local n8n="$n8n_dir/node_modules/.bin/n8n"
  env "${n8n_env[@]}" "$n8n" import:workflow --input="$tmp/n8n-echo.json" >"$tmp/n8n-import.log" 2>&1 ||
    { cat "$tmp/n8n-import.log" >&2; return 1; }
  activate_n8n "$n8n"
  env "${n8n_env[@]}" "$n8n" start >"$tmp/n8n.log" 2>&1 &
  bench_pids+=($!)
  n8n_pid=$!
  n8n_url="http://127.0.0.1:$port/webhook/pergola-bench-echo"
  local _
  for _ in $(seq 1 1200); do
    kill -0 "$n8n_pid" 2>/dev/null || { echo "n8n exited; its log:" >&2; tail -30 "$tmp/n8n.log" >&2; return 1; }
    # Ready when this n8n (not whatever else may hold the port) has
    # activated the workflow and the webhook echoes.
    if grep -q 'Activated workflow "pergola bench echo"' "$tmp/n8n.log" &&
      curl -sf -X POST -H 'Content-Type: application/json' -d '{"name":"up"}' "$n8n_url" 2>/dev/null | grep -q '"out":"up"'; then
      return 0
    fi
    sleep 0.1
  done
  echo "n8n did not answer at $n8n_url within 120 s; its log:" >&2
  tail -30 "$tmp/n8n.log" >&2
  return 1
}

# activate_n8n turns the imported workflow on: n8n 2 publishes it, n8n 1
# sets it active.
activate_n8n() {
  if env "${n8n_env[@]}" "$1" publish:workflow --id=pergolaBenchEcho >"$tmp/n8n-activate.log" 2>&1; then return 0; fi
  env "${n8n_env[@]}" "$1" update:workflow --id=pergolaBenchEcho --active=true >>"$tmp/n8n-activate.log" 2>&1 ||
    { cat "$tmp/n8n-activate.log" >&2; return 1; }
}

bench_build workflow
if [ $mariadb = 1 ]; then use_mariadb; fi
start_server main
extra=()
if [ $with_n8n = 1 ]; then
  install_n8n
  start_n8n
  extra+=(-n8n "$n8n_url")
  echo "n8n $n8n_version (Node $(node --version)), idle RSS $(awk '/VmRSS/ {print int($2/1024)}' /proc/$n8n_pid/status) MB"
fi
if [ $profile = 1 ]; then mkdir -p "$tmp/prof"; extra+=(-pprof "$main_pprof" -profile "$tmp/prof"); fi
"$tmp/bench-workflow" -base "$main_url" -token $token -pid "$main_pid" -label "$backend_label" "${extra[@]}" "$@" || {
  for log in "$tmp/main.log" "$tmp/n8n.log"; do [ -e "$log" ] && { echo "--- end of $(basename "$log")"; tail -20 "$log"; }; done >&2
  exit 1
}
echo
echo "The engine's own benchmark (go test -bench 'RunCached20|RunsPerSecond20' ./workflow/):"
go test -run '^$' -bench 'RunCached20|RunsPerSecond20' -benchtime 2000x ./workflow/ | grep -E '^Benchmark'
if [ $profile = 1 ]; then print_profiles "$tmp/prof"; fi
