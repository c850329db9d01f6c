#!/usr/bin/env bash
# Two Pergola processes on one MariaDB database and one Redis prefix (fresh,
# dropped afterwards) behind one address (scripts/bench/proxy, round robin
# per connection): the streamed chat rate and the 2-node workflow rate
# through both, beside one process alone, at the same concurrency; then
# thousands of streamed chats at once through both (fake model streaming
# 20 tokens 20 ms apart, so they overlap), which must all succeed, with
# each process's peak memory.
# Usage: scripts/bench-scale.sh [chats at once, default 5000] [concurrency, default 32] [seconds per rate, default 15; 0: no rates]
set -euo pipefail
cd "$(dirname "$0")/.."
burst=${1:-5000} conc=${2:-32} secs=${3:-15}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
source scripts/bench/lib.sh
if ! (exec 3<>/dev/tcp/127.0.0.1/3306) 2>/dev/null || ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  echo "bench-scale needs MariaDB on 127.0.0.1:3306 and Redis on 127.0.0.1:6379 (scripts/services.sh starts them)" >&2
  exit 1
fi
bench_build chat workflow proxy
use_mariadb
start_fakellm 0
fast_llm=$llm_url
start_fakellm 20ms
slow_llm=$llm_url
start_server a
start_server b
port=$(free_port 19400)
"$tmp/bench-proxy" -listen "127.0.0.1:$port" -to "${a_url#http://},${b_url#http://}" &
bench_pids+=($!)
proxy_pid=$!
both="http://127.0.0.1:$port"
wait_http "${both#http://}/readyz" "the proxy"
echo "processes: a = $a_pid, b = $b_pid (Pergola), proxy = $proxy_pid; $backend_label; $(nproc) cores"

[ "$secs" = 0 ] && targets=() || targets=("one process:$a_url" "two processes:$both")
for target in "${targets[@]}"; do
  label=${target%%:*} url=${target#*:}
  "$tmp/bench-chat" -base "$url" -token $token -llm "$fast_llm" -label "$backend_label, $label" \
    -paths stream -bare=false -c "$conc" -warm 5 -duration "${secs}s"
  "$tmp/bench-workflow" -base "$url" -token $token -label "$backend_label, $label" -nodes "" \
    -c "$conc" -duration "${secs}s" -rounds 1
done
"$tmp/bench-chat" -base "$both" -token $token -model fake-slow -llm "$slow_llm" -label "$backend_label, two processes" \
  -burst "$burst" -pids "Pergola a=$a_pid,Pergola b=$b_pid,proxy=$proxy_pid"
