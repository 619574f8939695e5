#!/usr/bin/env bash
# Builds the examples/ projects the way a user would, from the staged artifacts (not the reactor), and runs each one
# against real servers: each locks, prints and exits 0.
#   scripts/examples-smoke.sh            stages first (scripts/stage.sh -DskipTests -q), then builds and runs
#   scripts/examples-smoke.sh --staged   uses target/staging-deploy as it is
# Where the artifacts come from: one Maven run over examples/pom.xml with
#   - examples/settings.xml: target/staging-deploy as a repository (io.latchkey only is found there), Maven Central
#     for everything else;
#   - a local repository of its own, target/examples-m2, chained to ~/.m2/repository as a read-only tail
#     (-Dmaven.repo.local.tail): third-party jars come from the machine's cache, io.latchkey jars are downloaded from
#     the staging repository into target/examples-m2 (checked below), so a stale io.latchkey in ~/.m2 is never used.
# Servers: redis-server and etcd from scripts/install-test-servers.sh, on free loopback ports, stopped on exit;
# ZooKeeper runs embedded in the plain-java example.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
start=$(date +%s)

if [ "${1:-}" != "--staged" ]; then
  scripts/stage.sh -q -DskipTests
fi
[ -d target/staging-deploy/io/latchkey/latchkey-redis ] || { echo "no staged artifacts in target/staging-deploy" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --dir "$work" > "$work/redis.log" 2>&1 &
pids+=($!)
etcd_port=$(free_port); etcd_peer=$(free_port)
etcd --name smoke --data-dir "$work/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
  --advertise-client-urls "http://127.0.0.1:$etcd_port" --listen-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" --initial-cluster "smoke=http://127.0.0.1:$etcd_peer" > "$work/etcd.log" 2>&1 &
pids+=($!)

m2="$root/target/examples-m2"
rm -rf "$m2/io/latchkey"
( cd examples && "$root/mvnw" -B -ntp -q -s settings.xml -Dlatchkey.staging="$root/target/staging-deploy" \
    -Dmaven.repo.local="$m2" -Dmaven.repo.local.tail="$HOME/.m2/repository" package )
# every io.latchkey jar the examples use was downloaded from the staging repository into the examples' own repository
if ! grep -rqs "latchkey-staging" "$m2/io/latchkey/latchkey-redis"; then
  echo "io.latchkey artifacts did not come from target/staging-deploy" >&2; exit 1
fi

for i in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
for i in $(seq 100); do curl -fs "http://127.0.0.1:$etcd_port/health" >/dev/null 2>&1 && break; sleep 0.1; done
redis="redis://127.0.0.1:$redis_port"

run() {  # run DIR MAIN ARGS...: the example's class path as its build wrote it
  local dir=$1 main=$2; shift 2
  echo "== examples/$dir"
  java -cp "examples/$dir/target/classes:$(cat "examples/$dir/target/classpath.txt")" "$main" "$@"
}
out=$(run plain-java com.example.PlainJavaExample "$redis" "http://127.0.0.1:$etcd_port" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
# on Linux x86_64/aarch64 the Redis client must have run on the native epoll transport
case "$(uname -m)" in x86_64|aarch64) echo "$out" | grep -q "netty epoll available: true" || { echo "epoll was not available" >&2; exit 1; } ;; esac
run spring-boot4 com.example.ExampleApplication --latchkey.uri="$redis" --logging.level.root=WARN
run spring-boot3 com.example.ExampleApplication --latchkey.uri="$redis" --logging.level.root=WARN
run shedlock com.example.ShedLockExample "$redis" 2>&1
run spring-integration com.example.SpringIntegrationExample "$redis" 2>&1
run kotlin-coroutines com.example.KotlinCoroutinesExampleKt "$redis" --once 2>&1
run micronaut com.example.MicronautExample "$redis" 2>&1
echo "== examples smoke passed in $(( $(date +%s) - start )) s"
