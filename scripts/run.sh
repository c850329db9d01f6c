#!/usr/bin/env bash
# Build Pergola with visible progress, then start it. The first build
# compiles every dependency (about 80 s on 2 cores, measured with
# `time scripts/run.sh --help` on a machine with an empty Go build cache);
# later builds take a few seconds. Arguments go to the server, e.g.
#   scripts/run.sh              serve on :8888 with SQLite under ./data
#   scripts/run.sh migrate      apply the migrations and exit
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
echo "run: building bin/pergola (each line is a package compiled; the first build takes a minute or two)" >&2
go build -v -o bin/pergola ./backend/cmd/pergola 2>&1 | awk '/\.go:|^#|^go: / {print "\n" $0; next} {n++; printf "\rrun: %d packages compiled, now %s\033[K", n, $0} END {if (n) print ""}' >&2
echo "run: built; starting" >&2
exec bin/pergola "$@"
