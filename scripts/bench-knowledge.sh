#!/usr/bin/env bash
# Knowledge bases over HTTP: a fresh Pergola (built here, fresh data
# folder; with --mariadb a fresh MariaDB database and Redis prefix, with
# --pgvector a PGlite server holding the chunks and vectors through
# PERGOLA_VECTOR_DSN, all dropped afterwards) and the fake model (chat and
# hashed bag-of-words embeddings, no latency). The bench program ingests
# generated documents and a CSV through /api/knowledge and waits on the
# progress route (chunks per second, embedding requests and inputs the
# fake counted), times POST /api/knowledge/{id}/search by strategy, runs a
# bot with auto-call knowledge interleaved with the same bot without, and
# reads the server's VmRSS along the way.
#
# --size 10k  (default) 200 documents of 50 chunks
# --size 100k 100 documents of 1,000 chunks (about 420 KB each, sent 9 to
#             a request); -docs 10 -chunks-per-doc 10000 after it ingests
#             the same in 10 documents of 4 MB
#
# PGlite is PostgreSQL compiled to WASM, one process and one session: its
# figures show that the pgvector path works, not what PostgreSQL does.
# --profile adds the profile phase: a CPU profile of the server per bot
#             (no knowledge, then each strategy), each one's top printed;
#             PERGOLA_BENCH_PROFILES=DIR keeps the profiles and the binary.
# Usage: scripts/bench-knowledge.sh [--mariadb|--pgvector] [--size 10k|100k] [--profile] [bench flags: -n 300 -turns 200 -phases search,chat ...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/lib.sh
store=sqlite size=10k profile=0
while [ $# -gt 0 ]; do
  case $1 in
    --mariadb) store=mariadb; shift ;;
    --pgvector) store=pgvector; shift ;;
    --size) size=$2; shift 2 ;;
    --profile) profile=1; shift ;;
    *) break ;;
  esac
done
case $size in
  10k) corpus=(-docs 200 -chunks-per-doc 50) ;;
  100k) corpus=(-docs 100 -chunks-per-doc 1000) ;;
  *) echo "--size: 10k or 100k, got $size" >&2; exit 2 ;;
esac
bench_build knowledge
start_fakellm 0
if [ $store = mariadb ]; then use_mariadb; fi
if [ $store = pgvector ]; then
  source scripts/pglite.sh
  PGLITE_STATE="$tmp/pglite"
  trap 'pglite_stop; bench_cleanup' EXIT
  pglite_start
  backend_env+=(PERGOLA_VECTOR_DSN="$PERGOLA_TEST_PGVECTOR_DSN")
  backend_label="SQLite + pgvector on PGlite (WASM: correctness-grade, not representative)"
fi
backend_env+=(PERGOLA_KNOWLEDGE_MAX_CHUNKS=20000)
start_server main
extra=()
if [ $profile = 1 ]; then mkdir -p "$tmp/prof"; extra=(-pprof "$main_pprof" -profile "$tmp/prof"); fi
"$tmp/bench-knowledge" -base "$main_url" -token $token -llm "$llm_url" -pid "$main_pid" -label "$backend_label" "${corpus[@]}" "${extra[@]}" "$@"
if [ $profile = 1 ]; then
  print_profiles "$tmp/prof"
  if [ -n "${PERGOLA_BENCH_PROFILES:-}" ]; then mkdir -p "$PERGOLA_BENCH_PROFILES"; cp "$tmp/prof"/*.pprof "$tmp/pergola" "$PERGOLA_BENCH_PROFILES/"; fi
fi
