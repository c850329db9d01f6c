#!/usr/bin/env bash
# The test command: every Go test (storage on SQLite and MariaDB, cache and
# queues on memory and Redis) and the node conformance tests in frontend-api.
# With CI=true a missing MariaDB or Redis fails the run instead of skipping.
# PGlite with pgvector (scripts/pglite.sh, node) serves the pgvector
# knowledge index tests through PERGOLA_TEST_PGVECTOR_DSN; it is stopped at
# the end, and with CI=true a PGlite that cannot start fails the run.
#
# Every database, MySQL user and Redis key a test makes carries this run's
# id PERGOLA_TEST_RUN (see infra/testenv). After the tests the script lists
# what the run left behind, and keys that appeared under the production
# prefix pergola:, and fails the run if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/services.sh

export PERGOLA_TEST_RUN="${PERGOLA_TEST_RUN:-$(od -An -tx1 -N3 /dev/urandom | tr -d ' \n')}"
source scripts/test-leaks.sh
echo "== test run $PERGOLA_TEST_RUN"
prod_before=$(prod_keys)

source scripts/pglite.sh
trap pglite_stop EXIT
rc=0
if [ -z "${PERGOLA_TEST_PGVECTOR_DSN:-}" ]; then
  echo "== PGlite (pgvector)"
  if ! pglite_start; then
    echo "PGlite did not start: the pgvector tests will skip" >&2
    [ "${CI:-}" != true ] || rc=1
  fi
fi

echo "== go vet"
go vet ./... || rc=$?

if [ "$rc" -eq 0 ]; then
  echo "== go test"
  go test -count=1 -timeout 20m ./... || rc=$?
fi

if [ "$rc" -eq 0 ] && [ -f frontend-api/package.json ]; then
  echo "== frontend-api (node tests against a live server)"
  scripts/frontend-test.sh || rc=$?
fi

echo "== leftovers of run $PERGOLA_TEST_RUN"
check_leaks "$prod_before" || { [ "$rc" -ne 0 ] || rc=1; }
exit "$rc"
