#!/usr/bin/env bash
# The soak run (outside CI): `latchkey verify --faults --embedded KIND --soak DURATION` on every embedded kind at once,
# one verifier process per kind, at a nice level so that the machine stays usable. Each kind's output and HTML timeline
# go to OUT/KIND.txt and OUT/KIND.html; the summary (each kind's soak table and verdict) to OUT/summary.txt.
# Usage: scripts/soak.sh [DURATION (default 30m)] [OUT (default target/soak)] [KIND…]
# Needs root for the partition faults (network namespaces) and the test servers of scripts/install-test-servers.sh.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
duration="${1:-30m}"
out="${2:-$root/target/soak}"
shift $(( $# < 2 ? $# : 2 ))
kinds=("$@")
if [ ${#kinds[@]} -eq 0 ]; then
  kinds=(redis redis-sentinel redis-cluster zookeeper zookeeper-ensemble etcd etcd-cluster postgresql mariadb
         postgresql-pgbouncer)
fi
mkdir -p "$out"
# A copy of the jar: rebuilding the project meanwhile must not change the workers the soak starts.
jar=""
for j in "$root"/latchkey-cli/target/latchkey-cli-*.jar; do
  case "$j" in *-sources.jar|*-javadoc.jar|*/original-*) ;; *) [ -f "$j" ] && jar="$j" ;; esac
done
[ -n "$jar" ] || { echo "soak: build the command-line jar first: ./mvnw -q -pl latchkey-cli -am package -Dmaven.test.skip=true" >&2; exit 2; }
cp "$jar" "$out/latchkey-cli.jar"
echo "soak: ${kinds[*]} for $duration each, at once; started $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores" | tee "$out/summary.txt"
pids=()
for k in "${kinds[@]}"; do
  nice -n 10 java -jar "$out/latchkey-cli.jar" verify --faults --embedded "$k" --soak "$duration" \
      --report "$out/$k.html" >"$out/$k.txt" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"; rc=$?
  [ $rc -eq 0 ] || status=1
  echo "${kinds[$i]}: exit $rc" >>"$out/summary.txt"
done
for k in "${kinds[@]}"; do
  { echo; echo "== $k"; grep -A5 '^soak of' "$out/$k.txt"; grep -E 'whole run|^VIOLATION|all fault rules held|^FAILED' "$out/$k.txt"; } >>"$out/summary.txt"
done
echo "soak: ended $(date -u '+%Y-%m-%d %H:%M UTC')" >>"$out/summary.txt"
cat "$out/summary.txt"
exit $status
