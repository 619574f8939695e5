#!/usr/bin/env bash
# Installs the server binaries the test fixtures start (Debian packages). Idempotent: does nothing when they
# are already on the PATH. Needs root (or sudo) for apt-get.
set -euo pipefail

need=()
need_valkey=0
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
# valkey-server 8.0 for the Valkey run of the Redis TCKs (test.sh): Debian 12 has it in bookworm-backports only,
# added below from the mirror the machine's apt sources already name.
command -v valkey-server >/dev/null 2>&1 || need_valkey=1
# libfaketime lets the fault suite jump the embedded PostgreSQL server's wall clock (FakeClock in latchkey-testing).
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1 ] \
  || need+=(faketime)

# Chromium and its WebDriver for the browser tests of the operator console (latchkey-cli ConsoleBrowserTest).
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || [ -x /usr/bin/chromedriver ] || need+=(chromium-driver)

if [ ${#need[@]} -eq 0 ] && [ "$need_valkey" -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# Prints "URI|Signed-By" of the first Debian source that serves the suite $1 (one-line .list files and deb822
# .sources files in /etc/apt), or nothing. The mirror is the machine's own: none is written into this script.
debian_mirror_for() {
  local suite=$1 f
  {
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    # deb [options] URI suite components...
    awk -v suite="$suite" '
      $1 == "deb" {
        i = 2; opts = ""
        if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) { opts = opts " " $i; i++ } opts = opts " " $i; i++ }
        if ($(i + 1) == suite) {
          key = ""
          if (match(opts, /signed-by=[^] ]+/)) key = substr(opts, RSTART + 10, RLENGTH - 10)
          print $i "|" key; exit
        }
      }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822 stanzas separated by blank lines; fields Types, URIs, Suites, Signed-By (one line each here)
    awk -v suite="$suite" '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uris != "") {
          split(uris, u, " "); print u[1] "|" key; found = 1; exit
        }
        types = ""; uris = ""; suites = ""; key = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]*#/ { next }
      tolower($1) == "types:"     { $1 = ""; types = $0 }
      tolower($1) == "uris:"      { $1 = ""; uris = $0 }
      tolower($1) == "suites:"    { $1 = ""; suites = $0 }
      tolower($1) == "signed-by:" { $1 = ""; key = $0 }
      END { if (!found) flush() }' "$f" | sed 's/| */|/; s/^ *//'
  done
  } | head -n 1
}

if [ ${#need[@]} -gt 0 ]; then
  echo "installing test servers: ${need[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ "$need_valkey" -eq 1 ]; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  if [ "$codename" = "bookworm" ]; then
    backports=/etc/apt/sources.list.d/latchkey-bookworm-backports.list
    if ! grep -rqs --include='*.list' --include='*.sources' -E '(^|[[:space:]])bookworm-backports([[:space:]]|$)' \
        /etc/apt/sources.list /etc/apt/sources.list.d; then
      mirror=$(debian_mirror_for bookworm)
      if [ -z "$mirror" ]; then
        echo "no apt source serves Debian bookworm (/etc/apt/sources.list, /etc/apt/sources.list.d): cannot add" \
          "bookworm-backports for valkey-server" >&2
        exit 1
      fi
      uri=${mirror%%|*}
      key=${mirror#*|}
      echo "adding bookworm-backports from $uri for valkey-server"
      echo "deb ${key:+[signed-by=$key] }$uri bookworm-backports main" | $SUDO tee "$backports" >/dev/null
    fi
    $SUDO apt-get update -qq
    echo "installing test servers: valkey-server (bookworm-backports)"
    $SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports valkey-server >/dev/null
  else
    # Debian 13 and later carry valkey-server in their main suite.
    echo "installing test servers: valkey-server"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends valkey-server >/dev/null
  fi
fi

# The packages' own services are not wanted: the tests start their own servers on free ports.
for svc in redis-server valkey-server postgresql mariadb etcd pgbouncer; do
  $SUDO service "$svc" stop >/dev/null 2>&1 || true
done
