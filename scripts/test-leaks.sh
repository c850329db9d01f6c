#!/usr/bin/env bash
# Sourced by scripts/test.sh: lists what a test run left on the test
# MariaDB and Redis. Needs PERGOLA_TEST_RUN; reads PERGOLA_TEST_MYSQL_DSN
# and PERGOLA_TEST_REDIS_ADDR like infra/testenv.

# mysql_q SQL: one column per line, from the test server.
mysql_q() {
  local dsn=${PERGOLA_TEST_MYSQL_DSN:-root@tcp(127.0.0.1:3306)/}
  local cred=${dsn%%@*} addr=${dsn#*@tcp(}
  addr=${addr%%)*}
  local user=${cred%%:*} pass=""
  [ "$cred" != "$user" ] && pass=${cred#*:}
  local client=mariadb
  command -v mariadb >/dev/null 2>&1 || client=mysql
  MYSQL_PWD=$pass "$client" -u"$user" -h"${addr%:*}" -P"${addr##*:}" -N -B -e "$1"
}

# redis_q ARGS: redis-cli against the test Redis.
redis_q() {
  local addr=${PERGOLA_TEST_REDIS_ADDR:-127.0.0.1:6379}
  redis-cli -h "${addr%:*}" -p "${addr##*:}" "$@"
}

# redis_dbs: the indexes of the Redis databases that hold keys.
redis_dbs() {
  redis_q info keyspace | sed -n 's/^db\([0-9]*\):.*/\1/p'
}

# scan_all PATTERN: "db N: key" for every key matching PATTERN in any database.
scan_all() {
  local db
  for db in $(redis_dbs); do
    redis_q -n "$db" --scan --pattern "$1" | sed "s/^/db $db: /"
  done
}

# prod_keys: the keys under the production prefix, sorted.
prod_keys() {
  if command -v redis-cli >/dev/null 2>&1; then scan_all 'pergola:*' | sort; fi
}

# leak_tools: fails (under CI) or warns when a client is missing.
leak_tools() {
  local missing=""
  command -v redis-cli >/dev/null 2>&1 || missing="redis-cli"
  command -v mariadb >/dev/null 2>&1 || command -v mysql >/dev/null 2>&1 || missing="$missing mariadb"
  [ -z "$missing" ] && return 0
  echo "leak check: $missing not installed" >&2
  [ "${CI:-}" != true ]
}

# check_leaks PROD_BEFORE: prints and fails on databases, MySQL users and
# Redis keys of this run, and on keys new under pergola:.
check_leaks() {
  leak_tools || return 1
  command -v redis-cli >/dev/null 2>&1 || return 0
  local run=$PERGOLA_TEST_RUN like="pergola\\_test\\_${PERGOLA_TEST_RUN}\\_%" found=0 out
  out=$(mysql_q "SHOW DATABASES LIKE '$like'") || { echo "leak check: cannot query MariaDB" >&2; return 1; }
  [ -n "$out" ] && { echo "leaked databases:"; echo "$out"; found=1; }
  out=$(mysql_q "SELECT CONCAT(user, '@', host) FROM mysql.user WHERE user LIKE '$like'")
  [ -n "$out" ] && { echo "leaked MySQL users:"; echo "$out"; found=1; }
  out=$(scan_all "pergola_test:${run}:*" | head -n 50)
  [ -n "$out" ] && { echo "leaked Redis keys (first 50):"; echo "$out"; found=1; }
  out=$(comm -13 <(printf '%s\n' "$1") <(prod_keys) | sed '/^$/d' | head -n 50)
  [ -n "$out" ] && { echo "new keys under the production prefix pergola: (a test without its own prefix?):"; echo "$out"; found=1; }
  [ "$found" -eq 0 ] && echo "nothing left behind"
  return "$found"
}
