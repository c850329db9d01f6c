#!/usr/bin/env bash
# The node tests of frontend-api/ against a live Pergola: builds the server,
# starts the fake OpenAI-compatible model (`pergola fakellm`) and the server
# on free loopback ports, the server with a fresh SQLite data dir, a
# bootstrap admin (token + password), a models file whose default
# embedding model is the fake one, and loopback let through the egress
# guard, waits for both, then runs `npm test`
# in frontend-api/ with PERGOLA_BASE_URL, PERGOLA_TOKEN, PERGOLA_ADMIN_EMAIL,
# PERGOLA_ADMIN_PASSWORD and PERGOLA_FAKE_LLM_URL (the fake model's OpenAI
# base URL, http://127.0.0.1:PORT/v1) set. Both processes are stopped on
# exit, whatever happens. Called by scripts/test.sh after the Go tests.
#
#   scripts/frontend-test.sh            build, start, test
#   scripts/frontend-test.sh -- ARGS    extra arguments for `node --test`,
#                                       e.g. -- --test-name-pattern=openai
#   KEEP_TMP=1 scripts/frontend-test.sh keep the temp dir (binary, data, logs)
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

node_args=()
if [ "${1:-}" = "--" ]; then shift; node_args=("$@"); fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pergola-frontend.XXXXXX")
server_pid=""
llm_pid=""
# stop PID: TERM, up to 5 s to exit, then KILL.
stop() {
  local pid=$1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  stop "$server_pid"
  stop "$llm_pid"
  if [ "${KEEP_TMP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

server_log="$tmp/server.log"
llm_log="$tmp/fakellm.log"
show_server_log() {
  log "server log ($server_log), last 100 lines:"
  tail -n 100 "$server_log" >&2 || true
  log "fake LLM log ($llm_log), last 20 lines:"
  tail -n 20 "$llm_log" >&2 || true
}

# ---- the contract: /openapi.yaml lints clean on Redocly's recommended rules ---
start=$SECONDS
log "linting idl/merged/openapi.yaml (Redocly)"
scripts/lint-openapi.sh >"$tmp/openapi-lint.txt" 2>&1 || {
  cat "$tmp/openapi-lint.txt" >&2
  die "scripts/lint-openapi.sh found errors in idl/merged/openapi.yaml"
}
if grep -Eq 'You have [0-9]+ warnings?' "$tmp/openapi-lint.txt"; then
  cat "$tmp/openapi-lint.txt" >&2
  die "scripts/lint-openapi.sh found warnings in idl/merged/openapi.yaml"
fi

# ---- build -------------------------------------------------------------------
log "building the server"
go build -o "$tmp/pergola" ./backend/cmd/pergola

# ---- free ports: try from a random base until nothing answers there -----------
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# free_port [EXCEPT]: a port nothing listens on (and not EXCEPT).
free_port() {
  local base p
  base=$((20000 + RANDOM % 30000))
  for offset in $(seq 0 199); do
    p=$((base + offset))
    if [ "$p" != "${1:-}" ] && ! port_in_use "$p"; then printf '%s\n' "$p"; return 0; fi
  done
  return 1
}
port=$(free_port) || die "no free port for the server"
llm_port=$(free_port "$port") || die "no free port for the fake LLM"

# GET PATH from 127.0.0.1:PORT over bash's /dev/tcp so curl is not needed;
# prints the HTTP status.
http_status() {
  local line
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$2" >&3
  IFS= read -r -t 2 line <&3 || { exec 3<&-; return 1; }
  exec 3<&-
  line=${line%$'\r'}
  printf '%s\n' "${line#* }" | cut -d' ' -f1
}

# wait_ready NAME PID PORT PATH: until GET PATH answers 200 (30 s at most).
wait_ready() {
  local deadline=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if ! kill -0 "$2" 2>/dev/null; then
      show_server_log
      die "the $1 exited before it was ready"
    fi
    if [ "$(http_status "$3" "$4" 2>/dev/null || true)" = 200 ]; then return 0; fi
    sleep 0.2
  done
  show_server_log
  die "the $1 (http://127.0.0.1:$3$4) did not answer 200 within 30s"
}

# ---- the fake OpenAI-compatible model ------------------------------------------
# Deterministic: "echo: <last user text>"; "#call <tool> <json args>" calls an
# offered tool; a tool result is answered "tool said: <content>". Small chunks
# so that streamed answers come in several deltas.
llm_url="http://127.0.0.1:$llm_port/v1"
"$tmp/pergola" fakellm --addr "127.0.0.1:$llm_port" --chunk-chars 4 >"$llm_log" 2>&1 &
llm_pid=$!

# ---- the models file: the platform's embedding model, on the fake model --------
# Knowledge bases made through Coze's API (datasets.create names no model)
# embed with the platform's default embedding model.
models_file="$tmp/models.yaml"
cat >"$models_file" <<YAML
models:
  - id: fe-embedding
    name: Fake embedding (pergola fakellm)
    provider: openai
    base_url: $llm_url
    api_key: sk-fake
    model: fake-embedding
    kind: embedding
    default: true
YAML

# ---- start -------------------------------------------------------------------
rand_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }
token="pat_frontend_$(rand_hex 16)"
password="frontend-$(rand_hex 8)"
email="admin@pergola.local"
base_url="http://127.0.0.1:$port"

# Start from a clean PERGOLA_* environment so a DSN or Redis address exported
# for the Go tests does not leak in: this server is the embedded default.
# The suites make well over the default 600 requests a minute with one token
# (the rate limit has its own Go tests), so the limit is raised. Loopback is
# let through the egress guard: the knowledge tests serve their web pages
# from 127.0.0.1.
unset_pergola=()
while IFS= read -r name; do unset_pergola+=(-u "$name"); done < <(compgen -e | grep '^PERGOLA_' || true)
env "${unset_pergola[@]}" \
  PERGOLA_ADDR="127.0.0.1:$port" \
  PERGOLA_DATA_DIR="$tmp/data" \
  PERGOLA_BOOTSTRAP_TOKEN="$token" \
  PERGOLA_BOOTSTRAP_EMAIL="$email" \
  PERGOLA_BOOTSTRAP_PASSWORD="$password" \
  PERGOLA_LOG_LEVEL=warn \
  PERGOLA_RATE_LIMIT=6000 \
  PERGOLA_MODELS_FILE="$models_file" \
  PERGOLA_EGRESS_ALLOW=127.0.0.1 \
  "$tmp/pergola" >"$server_log" 2>&1 &
server_pid=$!

# ---- wait for both ----------------------------------------------------------------
wait_ready "fake LLM" "$llm_pid" "$llm_port" /v1/models
wait_ready server "$server_pid" "$port" /readyz
log "server ready on $base_url, fake LLM on $llm_url ($((SECONDS - start))s)"

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
# `npm test`, or with extra node arguments the same build and run by hand.
run_tests() {
  if [ "${#node_args[@]}" -eq 0 ]; then
    npm test
  else
    npm run build && node --test --test-reporter=spec "${node_args[@]}" dist/test/*.test.js
  fi
}
rc=0
PERGOLA_BASE_URL="$base_url" \
  PERGOLA_TOKEN="$token" \
  PERGOLA_ADMIN_EMAIL="$email" \
  PERGOLA_ADMIN_PASSWORD="$password" \
  PERGOLA_FAKE_LLM_URL="$llm_url" \
  run_tests || rc=$?
if [ "$rc" -ne 0 ]; then
  show_server_log
  die "npm test failed (exit $rc)"
fi
log "passed in $((SECONDS - start))s"
