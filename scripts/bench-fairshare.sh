#!/usr/bin/env bash
# Fair shares between workspaces, over HTTP: a fresh Pergola on the
# embedded default (SQLite; the code workers are per process, so the back
# end does not matter) with the default settings. Three hostile workspaces
# each keep eight endless-loop code nodes going at once (their share is a
# quarter of the code workers: the rest wait and are refused), while a
# fourth workspace runs a trivial code node through /v1/workflow/run one
# run after another: its p50/p99 alone, then under the hostile load, for
# JavaScript and (when the machine has python3 and bwrap) Python. Then the
# same on a server with PERGOLA_FAIR_SHARE=1 (no share per workspace), for
# comparison. Exits non-zero when a trivial run fails with the defaults
# (without a share per workspace they fail by design).
# Usage: scripts/bench-fairshare.sh [bench flags: -n 300 -loops 8 ...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/lib.sh
bench_build fairshare
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== default settings (PERGOLA_FAIR_SHARE=0.25, PERGOLA_CODE_PARALLEL=$(( $(nproc) * 4 > 8 ? $(nproc) * 4 : 8 )))"
start_server shared
"$tmp/bench-fairshare" -base "$shared_url" -token "$token" -strict "$@"
kill "$shared_pid"
echo
echo "== PERGOLA_FAIR_SHARE=1: no share per workspace"
backend_env=(PERGOLA_FAIR_SHARE=1)
start_server unbounded
"$tmp/bench-fairshare" -base "$unbounded_url" -token "$token" "$@"
