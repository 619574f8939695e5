#!/usr/bin/env bash
# Installs the server binaries the test fixtures start (Debian packages). Idempotent: does nothing when they
# are already on the PATH. Needs root (or sudo) for apt-get.
set -euo pipefail

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)

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
for svc in redis-server; do
  $SUDO service "$svc" stop >/dev/null 2>&1 || true
done
