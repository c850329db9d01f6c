#!/usr/bin/env bash
# What a chat turn costs over HTTP: a fresh Pergola (built here, fresh data
# folder; with --mariadb a fresh MariaDB database and Redis prefix, both
# dropped afterwards) and the fake model with no token latency. The bench
# program publishes two bots through the API, warms up, then measures
# /v3/chat streamed and polled, without tools and with one tool round,
# interleaved with a bare eino ReAct agent on the same fake model, and
# prints p50/p99, the overhead and the time to first token added. With
# --profile it then takes a CPU profile of the server per path and prints
# each one's top.
# Usage: scripts/bench-chat.sh [--mariadb] [--profile] [bench flags: -n 300 -c 1 -poll 1ms ...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/lib.sh
mariadb=0 profile=0
while [ $# -gt 0 ]; do
  case $1 in
    --mariadb) mariadb=1; shift ;;
    --profile) profile=1; shift ;;
    *) break ;;
  esac
done
bench_build chat
start_fakellm 0
if [ $mariadb = 1 ]; then use_mariadb; fi
start_server main
extra=()
if [ $profile = 1 ]; then mkdir -p "$tmp/prof"; extra=(-pprof "$main_pprof" -profile "$tmp/prof"); fi
"$tmp/bench-chat" -base "$main_url" -token $token -llm "$llm_url" -pid "$main_pid" -label "$backend_label" "${extra[@]}" "$@"
if [ $profile = 1 ]; then print_profiles "$tmp/prof"; fi
