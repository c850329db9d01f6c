#!/usr/bin/env bash
# The test command: every Go test (storage on SQLite and MariaDB, cache and
# queues on memory and Redis) and the node conformance tests in frontend-api.
# With CI=true a missing MariaDB or Redis fails the run instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/services.sh

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 20m ./...

if [ -f frontend-api/package.json ]; then
  echo "== frontend-api (node tests against a live server)"
  scripts/frontend-test.sh
fi
