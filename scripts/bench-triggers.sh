#!/usr/bin/env bash
# How fast trigger dispatchers claim due schedule ticks, and that none is
# claimed twice: N interval triggers all due at once in a fresh MariaDB
# database (dropped afterwards), then P dispatcher processes (default 2)
# run the dispatcher's pass (due, claim by compare-and-set of next_run,
# record) until nothing is due. Workflow runs are stubbed: this measures
# dispatch, not runs. Prints ticks per second and fails on a duplicate.
# Usage: scripts/bench-triggers.sh [-n 2000] [-p 2]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/lib.sh
n=2000 procs=2
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    -p) procs=$2; shift 2 ;;
    *) echo "unknown flag $1" >&2; exit 2 ;;
  esac
done
go build -o "$tmp/bench-triggers" ./scripts/bench/triggers
bench_db="pergola_bench_triggers_$$"
mariadb -uroot -h127.0.0.1 -e "CREATE DATABASE $bench_db"
dsn="root@tcp(127.0.0.1:3306)/$bench_db?parseTime=true"
"$tmp/bench-triggers" -dsn "$dsn" -n "$n" setup
start=$(date +%s.%N)
pids=()
for i in $(seq 1 "$procs"); do
  "$tmp/bench-triggers" -dsn "$dsn" -out "$tmp/claimed.$i" claim > "$tmp/claim.$i.log" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
end=$(date +%s.%N)
for i in $(seq 1 "$procs"); do echo "process $i: $(cat "$tmp/claim.$i.log")"; done
total=$(cat "$tmp"/claimed.* | wc -l)
unique=$(cat "$tmp"/claimed.* | sort -u | wc -l)
echo "ticks due: $n, claimed: $total, distinct: $unique"
awk -v n="$total" -v s="$start" -v e="$end" 'BEGIN { printf "%.0f ticks/s claimed by all processes (%.2fs)\n", n / (e - s), e - s }'
if [ "$total" != "$n" ] || [ "$unique" != "$n" ]; then echo "FAIL: a tick was claimed twice or not at all" >&2; exit 1; fi
