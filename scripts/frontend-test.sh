#!/usr/bin/env bash
# The node tests of frontend-api/ against a live Pergola: builds the server,
# starts it on a free loopback port with a fresh SQLite data dir and a
# bootstrap admin (token + password), waits for /readyz, then runs
# `npm test` in frontend-api/ with PERGOLA_BASE_URL, PERGOLA_TOKEN,
# PERGOLA_ADMIN_EMAIL and PERGOLA_ADMIN_PASSWORD set. The server is stopped
# on exit, whatever happens. Called by scripts/test.sh after the Go tests.
#
#   scripts/frontend-test.sh            build, start, test
#   KEEP_TMP=1 scripts/frontend-test.sh keep the temp dir (binary, data, server log)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

log() { printf 'frontend-test: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

command -v go >/dev/null || die "go is not installed"
command -v node >/dev/null || die "node is not installed (v20 or later is needed)"
command -v npm >/dev/null || die "npm is not installed"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "node $(node --version) is too old; v20 or later is needed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pergola-frontend.XXXXXX")
server_pid=""
cleanup() {
  local rc=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "${KEEP_TMP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

server_log="$tmp/server.log"
show_server_log() {
  log "server log ($server_log), last 100 lines:"
  tail -n 100 "$server_log" >&2 || true
}

# ---- build -------------------------------------------------------------------
start=$SECONDS
log "building the server"
go build -o "$tmp/pergola" ./backend/cmd/pergola

# ---- a free port: try from a random base until nothing answers there ---------
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=""
base=$((20000 + RANDOM % 30000))
for offset in $(seq 0 199); do
  p=$((base + offset))
  if ! port_in_use "$p"; then port=$p; break; fi
done
[ -n "$port" ] || die "no free port in $base-$((base + 199))"

# ---- start -------------------------------------------------------------------
rand_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }
token="pat_frontend_$(rand_hex 16)"
password="frontend-$(rand_hex 8)"
email="admin@pergola.local"
base_url="http://127.0.0.1:$port"

# Start from a clean PERGOLA_* environment so a DSN or Redis address exported
# for the Go tests does not leak in: this server is the embedded default.
unset_pergola=()
while IFS= read -r name; do unset_pergola+=(-u "$name"); done < <(compgen -e | grep '^PERGOLA_' || true)
env "${unset_pergola[@]}" \
  PERGOLA_ADDR="127.0.0.1:$port" \
  PERGOLA_DATA_DIR="$tmp/data" \
  PERGOLA_BOOTSTRAP_TOKEN="$token" \
  PERGOLA_BOOTSTRAP_EMAIL="$email" \
  PERGOLA_BOOTSTRAP_PASSWORD="$password" \
  PERGOLA_LOG_LEVEL=warn \
  "$tmp/pergola" >"$server_log" 2>&1 &
server_pid=$!

# ---- wait for /readyz ----------------------------------------------------------
# GET /readyz over bash's /dev/tcp so curl is not needed; prints the status.
http_status() {
  local line
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$1" >&3
  IFS= read -r -t 2 line <&3 || { exec 3<&-; return 1; }
  exec 3<&-
  line=${line%$'\r'}
  printf '%s\n' "${line#* }" | cut -d' ' -f1
}
ready=""
deadline=$((SECONDS + 30))
while [ "$SECONDS" -lt "$deadline" ]; do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    show_server_log
    die "the server exited before it was ready"
  fi
  if [ "$(http_status /readyz 2>/dev/null || true)" = 200 ]; then ready=1; break; fi
  sleep 0.2
done
if [ -z "$ready" ]; then
  show_server_log
  die "$base_url/readyz did not answer 200 within 30s"
fi
log "server ready on $base_url ($((SECONDS - start))s)"

# ---- npm ci when node_modules is missing or older than package-lock.json -------
cd "$root/frontend-api"
stamp=node_modules/.pergola-lock-cksum
want=$(cksum <package-lock.json)
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  printf '%s\n' "$want" >"$stamp"
fi

if ! npm run --silent gen:check >/dev/null 2>&1; then
  log "warning: frontend-api/src/schema.d.ts is older than idl/*.yaml; run 'npm run gen' in frontend-api/"
fi

# ---- test ----------------------------------------------------------------------
rc=0
PERGOLA_BASE_URL="$base_url" \
  PERGOLA_TOKEN="$token" \
  PERGOLA_ADMIN_EMAIL="$email" \
  PERGOLA_ADMIN_PASSWORD="$password" \
  npm test || rc=$?
if [ "$rc" -ne 0 ]; then
  show_server_log
  die "npm test failed (exit $rc)"
fi
log "passed in $((SECONDS - start))s"
