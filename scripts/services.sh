#!/usr/bin/env bash
# Make sure MariaDB (or MySQL) and Redis answer on 127.0.0.1, installing and
# starting them on a bare Debian machine when they do not. Source it to get
# PERGOLA_TEST_MYSQL_DSN and PERGOLA_TEST_REDIS_ADDR exported; run it to just
# prepare the machine.
set -euo pipefail

MYSQL_ADDR_HOST=127.0.0.1
MYSQL_PORT=3306
REDIS_PORT=6379

log() { printf 'services: %s\n' "$*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 60); do
    port_open "$1" && return 0
    sleep 0.5
  done
  return 1
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# apt_install waits up to 10 minutes for the dpkg lock another install
# holds (a machine's first boot often runs one), instead of failing at once.
apt_install() {
  log "installing $* (waiting for the dpkg lock if another install holds it)"
  local wait=(-o DPkg::Lock::Timeout=600)
  as_root env DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" install -y -qq "$@" >&2
}

ensure_mariadb() {
  if ! port_open "$MYSQL_PORT"; then
    command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || apt_install mariadb-server mariadb-client
    log "starting MariaDB"
    as_root mkdir -p /run/mysqld
    as_root chown mysql:mysql /run/mysqld 2>/dev/null || true
    as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql >&2 \
      || as_root service mariadb start >&2
    wait_port "$MYSQL_PORT" || { log "MariaDB did not start"; return 1; }
  fi
  if [ -n "${PERGOLA_TEST_MYSQL_DSN:-}" ]; then return 0; fi
  # root without a password over TCP is how CI machines come; a fresh Debian
  # install only lets root in through the socket, so make a test user there.
  if command -v mariadb >/dev/null 2>&1 && ! mariadb -uroot -h"$MYSQL_ADDR_HOST" -e 'SELECT 1' >/dev/null 2>&1; then
    log "creating the pergola test user"
    as_root mariadb -e "CREATE USER IF NOT EXISTS 'pergola'@'127.0.0.1' IDENTIFIED BY 'pergola';
      GRANT ALL PRIVILEGES ON *.* TO 'pergola'@'127.0.0.1' WITH GRANT OPTION; FLUSH PRIVILEGES;"
    export PERGOLA_TEST_MYSQL_DSN="pergola:pergola@tcp($MYSQL_ADDR_HOST:$MYSQL_PORT)/"
  fi
}

ensure_redis() {
  if port_open "$REDIS_PORT"; then return 0; fi
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  log "starting Redis"
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/pergola-test.log >&2
  wait_port "$REDIS_PORT" || { log "Redis did not start"; return 1; }
}

# The web chat's browser tests drive Debian's Chromium (headless).
ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then return 0; fi
  apt_install chromium
}

ensure_mariadb
ensure_redis
ensure_chromium

# Python code nodes run the host's python3 in a bubblewrap sandbox.
ensure_python_sandbox() {
  if [ -x /usr/bin/python3 ] && command -v bwrap >/dev/null 2>&1; then return 0; fi
  apt_install python3 bubblewrap
}
ensure_python_sandbox
export PERGOLA_TEST_REDIS_ADDR="${PERGOLA_TEST_REDIS_ADDR:-127.0.0.1:$REDIS_PORT}"
log "MariaDB on :$MYSQL_PORT and Redis on :$REDIS_PORT are up"
