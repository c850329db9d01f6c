#!/usr/bin/env bash
# Measures how long `pergola serve` takes to answer /readyz (from the exec
# to the first 200, polled every 2 ms) and its resident memory when idle
# after 200 warm requests, on the embedded default (SQLite) and, when both
# are reachable on 127.0.0.1, on MariaDB + Redis. Each back end is measured
# twice: "fresh" (an empty data directory or database: migrations and the
# bootstrap included) and "existing" (a restart on data left by an earlier
# start). Then it runs one code node and reports what the code worker
# process adds: workers are separate processes, started on first use, and
# are not part of the server's RSS.
#
# Usage: scripts/measure-startup.sh [runs]     (default 9)
#   PERGOLA_BIN=path   measure that binary instead of building ./backend/cmd/pergola
#   PORT=n             listen port (default 18901)
# Needs bash, curl and, for MariaDB, the mariadb client and redis-cli.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
port=${PORT:-18901}
base=http://127.0.0.1:$port
token=pat_measure_startup
work=$(mktemp -d)
pid=
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
bin=${PERGOLA_BIN:-$work/pergola}
if [ -z "${PERGOLA_BIN:-}" ]; then
  # Built as the Dockerfile builds the release, then installed with cp as a
  # release binary is: the linker writes through mmap, and on kernels with
  # large page-cache folios a freshly linked file can be mapped in 2 MB
  # pages, about 10 MB more file-backed RSS than the installed copy gets.
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/linked" ./backend/cmd/pergola
  cp "$work/linked" "$bin"
fi

ms_now() { date +%s%N | cut -b1-13; }

# median prints the middle of its numeric arguments (the lower one of two).
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
best() { printf '%s\n' "$@" | sort -n | head -1; }
# mb_of PID FIELD prints a field of /proc/PID/status (VmRSS, RssAnon, RssFile) in MB.
mb_of() { awk -v f="$2:" '$1 == f {printf "%d", $2 / 1024}' "/proc/$1/status"; }

# start runs the server with the given environment, waits for /readyz and
# sets pid and took (ms since the exec).
start() {
  local t0; t0=$(ms_now)
  env "$@" PERGOLA_ADDR=127.0.0.1:$port PERGOLA_BOOTSTRAP_TOKEN=$token PERGOLA_LOG_LEVEL=warn "$bin" serve 2>>"$work/server.log" &
  pid=$!
  until curl -sf -o /dev/null "$base/readyz"; do
    kill -0 "$pid" 2>/dev/null || { echo "the server exited before it was ready:" >&2; tail -5 "$work/server.log" >&2; exit 1; }
    sleep 0.002
  done
  took=$(( $(ms_now) - t0 ))
}

stop() { kill "$pid"; wait "$pid" || true; pid=; }

# warm sends 200 authenticated requests on one connection, lets the server
# settle for a second and sets rss, anon and file (MB): the resident set, its
# private part (heap, stacks) and its file-backed part (the pages of the
# binary mapped in, shared with every process running it).
warm() {
  local urls=()
  for _ in $(seq 1 200); do urls+=("$base/v1/users/me"); done
  curl -sf -H "Authorization: Bearer $token" "${urls[@]}" >/dev/null ||
    { echo "the warm requests failed:" >&2; tail -5 "$work/server.log" >&2; exit 1; }
  sleep 1
  rss=$(mb_of "$pid" VmRSS) anon=$(mb_of "$pid" RssAnon) file=$(mb_of "$pid" RssFile)
}

# measure LABEL PREPARE ENV... starts the server RUNS times with ENV;
# PREPARE (a function) runs before each start.
measure() {
  local label=$1 prepare=$2; shift 2
  local times=() rsss=() anons=() files=()
  for _ in $(seq 1 "$runs"); do
    "$prepare"
    start "$@"
    warm
    stop
    times+=("$took"); rsss+=("$rss"); anons+=("$anon"); files+=("$file")
  done
  printf '%-24s ready median %4d ms, best %4d ms; idle RSS median %3d MB (private %d + file-backed %d), max %3d MB (%d runs)\n' \
    "$label" "$(median "${times[@]}")" "$(best "${times[@]}")" "$(median "${rsss[@]}")" "$(median "${anons[@]}")" \
    "$(median "${files[@]}")" "$(printf '%s\n' "${rsss[@]}" | sort -n | tail -1)" "$runs"
}

fresh_dir() { rm -rf "$work/data"; mkdir "$work/data"; }
keep_dir() { :; }

# Other work on the machine shows in the times: say how busy it was.
echo "$runs runs per line on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
fresh_dir; start PERGOLA_DATA_DIR="$work/data"; stop # the existing data for the restarts
measure "sqlite existing" keep_dir PERGOLA_DATA_DIR="$work/data"
measure "sqlite fresh" fresh_dir PERGOLA_DATA_DIR="$work/data"

# code_worker runs one code node on a fresh SQLite server and prints the RSS
# of the worker process it starts, next to the server's own.
code_worker() {
  fresh_dir
  start PERGOLA_DATA_DIR="$work/data" PERGOLA_CODE_SANDBOX=process
  warm
  local before=$rss auth=(-H "Authorization: Bearer $token" -H 'Content-Type: application/json')
  local ws; ws=$(curl -sf "${auth[@]}" "$base/v1/workspaces" | grep -o '"id":"[0-9]*"' | head -1 | grep -o '[0-9]*')
  local def='{"nodes":[{"id":"start","type":"start","outputs":[{"name":"n","type":"integer"}]},
    {"id":"code","type":"code","config":{"code":"function main({ params }) { return { v: \"n=\" + params.n }; }"},
     "inputs":{"n":{"ref":{"node":"start","path":"n"}}},"outputs":[{"name":"v","type":"string"}]},
    {"id":"end","type":"end","inputs":{"v":{"ref":{"node":"code","path":"v"}}}}],
    "edges":[{"from":"start","to":"code"},{"from":"code","to":"end"}]}'
  local wf; wf=$(curl -sf "${auth[@]}" -d "{\"workspace_id\":\"$ws\",\"name\":\"measure_code\",\"definition\":$def}" "$base/api/workflows" |
    grep -o '"id":"[0-9]*"' | head -1 | grep -o '[0-9]*')
  curl -sf "${auth[@]}" -d '{"parameters":{"n":7}}' "$base/api/workflows/$wf/test_run" | grep -q 'n=7' ||
    { echo "the code node did not run" >&2; stop; exit 1; }
  sleep 1
  local kids; kids=$(ps -o pid= --ppid "$pid" | xargs)
  local each=() k
  for k in $kids; do each+=("$(mb_of "$k" VmRSS) MB (private $(mb_of "$k" RssAnon))"); done
  printf '%-24s none while idle; after one code node %d worker process(es), RSS %s, separate from the server RSS (%d MB before, %d MB after)\n' \
    "code workers" "$(wc -w <<<"$kids")" "${each[*]:-none}" "$before" "$(mb_of "$pid" VmRSS)"
  stop
}
code_worker

if (exec 3<>/dev/tcp/127.0.0.1/3306) 2>/dev/null && (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  db="pergola_measure_$$"
  prefix="pergola_measure:$$:"
  key=$("$bin" secret)
  sql() { mariadb -uroot -h127.0.0.1 -e "$1"; }
  clean_redis() { redis-cli -h 127.0.0.1 --scan --pattern "$prefix*" | xargs -r redis-cli -h 127.0.0.1 del >/dev/null; }
  fresh_db() { sql "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"; clean_redis; }
  trap 'cleanup; sql "DROP DATABASE IF EXISTS $db" || true; clean_redis || true' EXIT
  maria=(PERGOLA_DATA_DIR="$work/data" PERGOLA_DB_DSN="root@tcp(127.0.0.1:3306)/$db" PERGOLA_REDIS_ADDR=127.0.0.1:6379
    PERGOLA_REDIS_PREFIX="$prefix" PERGOLA_SECRET_KEY="$key")
  fresh_db; start "${maria[@]}"; stop
  # Rate-limit counters live in Redis: clear them so runs do not add up.
  measure "mariadb+redis existing" clean_redis "${maria[@]}"
  measure "mariadb+redis fresh" fresh_db "${maria[@]}"
fi
