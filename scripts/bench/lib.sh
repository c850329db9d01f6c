# Shared by scripts/bench-*.sh (sourced, not run): builds the server and
# the benchmark programs into a temporary folder, starts the fake model
# and servers on free loopback ports, and on exit stops exactly the
# processes it started and drops what it created (data folder, MariaDB
# database, Redis keys).

bench_pids=()
bench_db=""
bench_prefix=""
tmp=$(mktemp -d)
token=pat_bench

bench_cleanup() {
  local pid
  for pid in "${bench_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${bench_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$bench_db" ]; then mariadb -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $bench_db" || true; fi
  if [ -n "$bench_prefix" ]; then
    redis-cli -h 127.0.0.1 --scan --pattern "${bench_prefix}*" | xargs -r redis-cli -h 127.0.0.1 del >/dev/null || true
  fi
  rm -rf "$tmp"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# free_port prints the first port from $1 up that nothing listens on.
free_port() {
  local p=$1
  while (exec 3<>/dev/tcp/127.0.0.1/"$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}

# bench_build builds the server and the named programs of scripts/bench.
# PERGOLA_BENCH_BIN names a server binary to measure instead (say, one
# built from an older commit, to compare).
bench_build() {
  if [ -n "${PERGOLA_BENCH_BIN:-}" ]; then cp "$PERGOLA_BENCH_BIN" "$tmp/pergola"; else go build -o "$tmp/pergola" ./backend/cmd/pergola; fi
  local prog
  for prog in "$@"; do go build -o "$tmp/bench-$prog" "./scripts/bench/$prog"; done
}

# start_fakellm LATENCY starts the fake model; sets llm_url.
start_fakellm() {
  local port; port=$(free_port 19300)
  "$tmp/pergola" fakellm --addr "127.0.0.1:$port" --token-latency "$1" --chunk-chars 4 >"$tmp/fakellm.log" 2>&1 &
  bench_pids+=($!)
  llm_url="http://127.0.0.1:$port/v1"
  wait_http "127.0.0.1:$port/v1/models" "the fake model"
}

# use_mariadb makes the servers started next share a fresh database and
# Redis prefix, dropped on exit.
use_mariadb() {
  bench_db="pergola_bench_$$"
  bench_prefix="pergola_bench:$$:"
  mariadb -uroot -h127.0.0.1 -e "CREATE DATABASE $bench_db"
  backend_env=(PERGOLA_DB_DSN="root@tcp(127.0.0.1:3306)/$bench_db" PERGOLA_REDIS_ADDR=127.0.0.1:6379
    PERGOLA_REDIS_PREFIX="$bench_prefix" PERGOLA_SECRET_KEY="$("$tmp/pergola" secret)")
  backend_label="MariaDB + Redis"
}
backend_env=()
backend_label="SQLite (embedded default)"

# start_server NAME starts a server on a free port with the chosen back
# end and a pprof listener; sets NAME_url, NAME_pid and NAME_pprof.
start_server() {
  local name=$1 port pport
  port=$(free_port 19100)
  pport=$(free_port $((port + 100)))
  env "${backend_env[@]}" PERGOLA_ADDR="127.0.0.1:$port" PERGOLA_DATA_DIR="$tmp/data-$name" PERGOLA_BOOTSTRAP_TOKEN=$token \
    PERGOLA_RATE_LIMIT=0 PERGOLA_LOG_LEVEL=warn PERGOLA_PPROF_ADDR="127.0.0.1:$pport" \
    "$tmp/pergola" >"$tmp/$name.log" 2>&1 &
  bench_pids+=($!)
  printf -v "${name}_pid" %s "$!"
  printf -v "${name}_url" %s "http://127.0.0.1:$port"
  printf -v "${name}_pprof" %s "http://127.0.0.1:$pport"
  wait_http "127.0.0.1:$port/readyz" "server $name"
}

# wait_http URL WHAT waits up to 30 s for URL to answer.
wait_http() {
  local _
  for _ in $(seq 1 600); do curl -sf "$1" >/dev/null && return 0; sleep 0.05; done
  echo "$2 did not answer at $1 within 30 s; its log:" >&2
  tail -20 "$tmp"/*.log >&2
  return 1
}

# print_profiles DIR prints, for every CPU profile in DIR, where the CPU
# lands (own time) and which of Pergola's own functions it is spent under
# (cumulative, the HTTP middleware chain hidden).
print_profiles() {
  local f
  for f in "$1"/*.pprof; do
    [ -e "$f" ] || continue
    echo
    echo "== $(basename "$f" .pprof): $(go tool pprof -top -nodecount=1 "$tmp/pergola" "$f" 2>/dev/null | grep -o 'of [0-9.]*m\?s total' | head -1)"
    echo "-- share of CPU with such a frame on the stack (shares overlap)"
    profile_shares "$f"
    echo "-- own time, top 12"
    go tool pprof -top -nodecount=12 "$tmp/pergola" "$f" 2>/dev/null | sed -n '/flat%/,$p'
    echo "-- cumulative time under Pergola's functions, top 20"
    go tool pprof -top -cum -nodecount=20 -show='pergola-ai/pergola/(application|infra|workflow|domain)|pergola-ai/pergola/backend/api/(chat|workflows|middleware)' \
      "$tmp/pergola" "$f" 2>/dev/null | sed -n '/flat%/,$p' | sed -E 's/\[go\.shape\.struct \{[^}]*\}\]/[…]/g; s/\[go\.shape\.[^]]*\]/[…]/g'
  done
}

# profile_shares FILE prints the share of a profile's samples under each
# component: a sample counts for every component one of its frames is in.
profile_shares() {
  local spec label re
  for spec in \
    "SQL (database/sql, gorm, drivers, SQLite):database/sql|gorm\.io|modernc\.org/sqlite|go-sql-driver" \
    "Redis client:go-redis" \
    "identity (token, user, membership):application/identity" \
    "model client (eino-ext, HTTP out):eino-ext|net/http\.\(\*persistConn\)|net/http\.\(\*Transport\)" \
    "eino (graph, agent, streams):cloudwego/eino/" \
    "JSON:encoding/json|bytedance/sonic" \
    "socket and file I/O:internal/poll\.\(\*FD\)" \
    "logging (slog):log/slog" \
    "GC and allocation:runtime\.gcBgMarkWorker|runtime\.mallocgc|runtime\.bgsweep|runtime\.bgscavenge" \
    "all syscalls:syscall"; do
    label=${spec%%:*} re=${spec#*:}
    printf '  %-42s %s\n' "$label" "$(go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 -focus="$re" \
      "$tmp/pergola" "$1" 2>/dev/null | sed -n 's/.*accounting for [^,]*, \([0-9.]*%\) of.*/\1/p' | head -1)"
  done
}
