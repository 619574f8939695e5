#!/usr/bin/env bash
# Installs the server binaries the test fixtures start (Debian packages). Idempotent: does nothing when they
# are already on the PATH. Needs root (or sudo) for apt-get.
set -euo pipefail

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# openssl makes the TLS test certificates of the Redis fixture (latchkey-testing).
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# kill (procps) lets the Redis Sentinel fixture freeze a replica with SIGSTOP.
command -v kill >/dev/null 2>&1 || [ -x /bin/kill ] || need+=(procps)
# PostgreSQL 15 for latchkey-jdbc: Debian keeps initdb/postgres off the PATH, the fixture also looks here.
command -v initdb >/dev/null 2>&1 || [ -x /usr/lib/postgresql/15/bin/initdb ] || need+=(postgresql-15)
# MariaDB for latchkey-jdbc: mariadb-install-db + mariadbd (in /usr/sbin, which may be off the PATH).
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
# PgBouncer (transaction pooling) in front of PostgreSQL for latchkey-jdbc (PgBouncerServer in latchkey-testing).
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || need+=(pgbouncer)
# etcd 3.4 for latchkey-etcd (the EtcdServer fixture runs /usr/bin/etcd).
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
# libfaketime lets the fault suite jump the embedded PostgreSQL server's wall clock (FakeClock in latchkey-testing).
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1 ] \
  || need+=(faketime)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "installing test servers: ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# The packages' own services are not wanted: the tests start their own servers on free ports.
for svc in redis-server postgresql mariadb etcd pgbouncer; do
  $SUDO service "$svc" stop >/dev/null 2>&1 || true
done
