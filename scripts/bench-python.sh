#!/usr/bin/env bash
# Python code nodes over HTTP: a fresh Pergola on the embedded default
# (SQLite) runs start -> Python code node -> end through /v1/workflow/run,
# RUNS times one after another (p50/p99 of the whole request) and RUNS
# times PAR at once (runs per second), and the same workflow with a
# JavaScript code node for comparison. Needs python3 and bwrap
# (scripts/services.sh installs them), curl and jq.
# Usage: scripts/bench-python.sh [RUNS] [PAR]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
par=${2:-4}
tmp=$(mktemp -d)
port=18893
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/pergola" ./backend/cmd/pergola
PERGOLA_ADDR=127.0.0.1:$port PERGOLA_DATA_DIR="$tmp/data" PERGOLA_BOOTSTRAP_TOKEN=pat_bench \
  PERGOLA_RATE_LIMIT=0 PERGOLA_LOG_LEVEL=warn "$tmp/pergola" >"$tmp/server.log" 2>&1 &
for _ in $(seq 1 200); do curl -sf 127.0.0.1:$port/readyz >/dev/null && break; sleep 0.05; done
api() { curl -sf -H 'Authorization: Bearer pat_bench' -H 'Content-Type: application/json' "$@"; }
base=http://127.0.0.1:$port
ws=$(api $base/v1/workspaces | jq -r '.data.workspaces[0].id')

# workflow LANGUAGE CODE: creates and publishes it, prints its id.
workflow() {
  local def
  def=$(jq -n --arg lang "$1" --arg code "$2" '{nodes: [
    {id: "start", type: "start", outputs: [{name: "n", type: "integer"}]},
    {id: "code", type: "code", config: {language: $lang, code: $code},
     inputs: {n: {ref: {node: "start", path: "n"}}}, outputs: [{name: "v", type: "integer"}]},
    {id: "end", type: "end", inputs: {v: {ref: {node: "code", path: "v"}}}}],
    edges: [{from: "start", to: "code"}, {from: "code", to: "end"}]}')
  local id
  id=$(api $base/api/workflows -d "$(jq -n --arg ws "$ws" --arg name "bench_$1" --argjson definition "$def" \
    '{workspace_id: $ws, name: $name, definition: $definition}')" | jq -r .data.id)
  api $base/api/workflows/$id/publish -d '{}' >/dev/null
  echo "$id"
}

# measure NAME ID: sequential latencies, then parallel throughput.
measure() {
  local body="{\"workflow_id\": \"$2\", \"parameters\": {\"n\": 20}}"
  [ "$(api $base/v1/workflow/run -d "$body" | jq -r .data)" = '{"v":40}' ] || { echo "$1: wrong answer"; exit 1; }
  for _ in $(seq 1 "$runs"); do
    api -o /dev/null -w '%{time_total}\n' $base/v1/workflow/run -d "$body"
  done | sort -n >"$tmp/lat"
  local p50 p99 start end
  p50=$(sed -n "$((runs / 2))p" "$tmp/lat")
  p99=$(sed -n "$((runs * 99 / 100))p" "$tmp/lat")
  start=$(date +%s.%N)
  seq 1 "$runs" | xargs -P "$par" -I{} curl -sf -o /dev/null -H 'Authorization: Bearer pat_bench' \
    -H 'Content-Type: application/json' $base/v1/workflow/run -d "$body"
  end=$(date +%s.%N)
  printf '%-10s one at a time: p50 %5.1f ms  p99 %5.1f ms   %d at once: %5.0f runs/s\n' "$1" \
    "$(echo "$p50 * 1000" | bc)" "$(echo "$p99 * 1000" | bc)" "$par" "$(echo "$runs / ($end - $start)" | bc -l)"
}

py=$(workflow python $'async def main(args):\n    return {"v": args.params["n"] * 2}\n')
js=$(workflow javascript 'function main({ params }) { return { v: params.n * 2 }; }')
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $runs runs"
measure python "$py"
measure javascript "$js"
