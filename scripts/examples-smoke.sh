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
    -Dmaven.repo.local="$m2" -Dmaven.repo.local.tail="$HOME/.m2/repository" -P otel-agent package )
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
echo "== examples/spring-boot4: two instances at once with the OpenTelemetry Java agent, --example.ticks=8"
# the example's -P otel-agent build copied the agent from Maven Central; each second one instance only runs the
# @LockedSchedule job: the union of both outputs has each second once, its fencing tokens rising with the seconds
# (C1 only and the serial collector: both start sooner on two busy cores)
step=$(date +%s)
boot4=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC
  -javaagent:examples/spring-boot4/target/opentelemetry-javaagent.jar -Dotel.traces.exporter=none
  -Dotel.metrics.exporter=none -Dotel.logs.exporter=none -Dotel.service.name=latchkey-example-spring-boot4
  -cp "examples/spring-boot4/target/classes:$(cat examples/spring-boot4/target/classpath.txt)"
  com.example.ExampleApplication --latchkey.uri="$redis" --logging.level.root=WARN --example.ticks=8)
timeout 120 java "${boot4[@]}" > "$work/otel-1.log" 2>&1 & node1=$!; pids+=($node1)
timeout 120 java "${boot4[@]}" > "$work/otel-2.log" 2>&1 & node2=$!; pids+=($node2)
wait "$node1" || { cat "$work/otel-1.log"; exit 1; }
wait "$node2" || { cat "$work/otel-2.log"; exit 1; }
python3 - "$work/otel-1.log" "$work/otel-2.log" <<'CHECK'
import re, sys
runs, windows = [], []
for node, path in enumerate(sys.argv[1:], 1):
    text = open(path).read()
    if re.search(r"exception|\berror\b", text, re.I):
        sys.exit(f"instance {node} logged an error:\n{text}")
    runs += [(int(s), int(t), node) for s, t in re.findall(r"^tick (\d+) token (\d+)$", text, re.M)]
    windows += [tuple(map(int, w)) for w in re.findall(r"^ticks (\d+)\.\.(\d+):", text, re.M)]
    print(f"instance {node}: " + " | ".join(l for l in text.splitlines() if l.startswith(("ticks ", "[otel.javaagent"))))
runs.sort()
print("runs (second, token, instance):", runs)
seconds = [s for s, _, _ in runs]
if len(set(seconds)) != len(seconds):
    sys.exit("a tick ran on both instances")
if any(a[1] >= b[1] for a, b in zip(runs, runs[1:])):
    sys.exit("fencing tokens do not rise with the ticks")
if len(windows) != 2:
    sys.exit("an instance did not finish its ticks")
first, last = max(w[0] for w in windows), min(w[1] for w in windows)
both = [s for s in seconds if first <= s <= last]
if last - first < 1 or len(both) < last - first:  # up together two seconds at least, one missed at most
    sys.exit(f"while both instances ran ({first}..{last}) {len(both)} ticks ran")
print(f"both instances up for {last - first + 1} ticks, {len(both)} runs in them, {len(runs)} runs in all")
CHECK
echo "== two instances with the agent: $(( $(date +%s) - step )) s"
run spring-boot3 com.example.ExampleApplication --latchkey.uri="$redis" --logging.level.root=WARN
run shedlock com.example.ShedLockExample "$redis" 2>&1
run spring-integration com.example.SpringIntegrationExample "$redis" 2>&1
run kotlin-coroutines com.example.KotlinCoroutinesExampleKt "$redis" --once 2>&1
# Quarkus and Micronaut: two instances of each at once with --example.ticks=10, each ships an order under @Locked, then
# stays for 10 ticks (whole seconds) of its scheduled report, which is due at every whole second on both (cron): every
# tick from the first instance's first to the last one's last ran exactly once across the two, the fencing tokens
# rise with the ticks, both instances were up together for 3 ticks at least, and neither logged an error or a warning.
ticks=10
two_instances() {  # two_instances NAME COMMAND...: both at once, at most 120 s each, then the check above
  local name=$1; shift
  echo "== examples/$name: two instances at once, --example.ticks=$ticks"
  local step; step=$(date +%s)
  timeout 120 "$@" --example.ticks=$ticks > "$work/$name-1.log" 2>&1 & local n1=$!; pids+=($n1)
  timeout 120 "$@" --example.ticks=$ticks > "$work/$name-2.log" 2>&1 & local n2=$!; pids+=($n2)
  wait "$n1" || { cat "$work/$name-1.log"; echo "examples/$name: instance 1 failed" >&2; exit 1; }
  wait "$n2" || { cat "$work/$name-2.log"; echo "examples/$name: instance 2 failed" >&2; exit 1; }
  python3 - "$work/$name-1.log" "$work/$name-2.log" <<'CHECK'
import re, sys
runs, windows = [], []
for node, path in enumerate(sys.argv[1:], 1):
    text = open(path).read()
    # the Netty 4.2 message Quarkus prints as Lettuce's event loops stop (latchkey-quarkus/README.md), with its trace;
    # two event loops stopping at once may print their "Exception in thread" headers on one line, then two traces
    rest = re.sub(r'(Exception in thread "lettuce-[^"]*" )*java.lang.NullPointerException: [^\n]*'
                  r'CleanerJava9.INVOKE_CLEANER" is null\n(\tat [^\n]*\n)*', "", text)
    bad = [l for l in rest.splitlines() if re.search(r"exception|\berror\b|\bwarn", l, re.I)]
    if bad:
        sys.exit(f"instance {node} logged an error or a warning:\n{text}")
    runs += [(int(s), int(t), node) for s, t in re.findall(r"^tick (\d+) token (\d+)$", text, re.M)]
    windows += [tuple(map(int, w)) for w in re.findall(r"^ticks (\d+)\.\.(\d+):", text, re.M)]
    print(f"instance {node}: " + " | ".join(l for l in rest.splitlines() if not l.startswith("tick ")))
runs.sort()
print("runs (tick, token, instance):", runs)
if len(windows) != 2:
    sys.exit("an instance did not finish its ticks")
ticks = [s for s, _, _ in runs]
start, end = min(w[0] for w in windows), max(w[1] for w in windows)
# the ticks counted: from the first instance's first to the last one's last (runs due while an instance started, on
# a client still connecting, may come seconds late, each after the other instance's run of the same tick has ended)
twice = sorted({s for s in ticks if ticks.count(s) > 1 and start <= s <= end})
if twice:
    sys.exit(f"ticks {twice} ran on both instances")
inside = [r for r in runs if start <= r[0] <= end]
if any(a[1] >= b[1] for a, b in zip(inside, inside[1:])):
    sys.exit("fencing tokens do not rise with the ticks")
missed = [s for s in range(start, end + 1) if s not in ticks]
if missed:
    sys.exit(f"ticks {missed} of {start}..{end} ran on neither instance")
both = min(w[1] for w in windows) - max(w[0] for w in windows) + 1
if both < 3:
    sys.exit(f"the two instances were up together for {both} ticks only")
per = {n: sum(1 for s, _, m in runs if m == n and start <= s <= end) for n in (1, 2)}
print(f"ticks {start}..{end}: each ran exactly once ({per[1]} on instance 1, {per[2]} on instance 2); "
      f"both instances up for {both} of them")
CHECK
  echo "== examples/$name, two instances: $(( $(date +%s) - step )) s"
}
two_instances micronaut java -cp "examples/micronaut/target/classes:$(cat examples/micronaut/target/classpath.txt)" \
  com.example.MicronautExample "$redis"
# Netty 4.2's default (adaptive) allocator fails to free its buffers in a Quarkus application and Lettuce's shutdown
# then waits in vain (see latchkey-quarkus/README.md): the pooled allocator, as Quarkus on Netty 4.1 has
two_instances quarkus java -Dio.netty.allocator.type=pooled -Dlatchkey.uri="$redis" \
  -jar examples/quarkus/target/quarkus-app/quarkus-run.jar
echo "== examples smoke passed in $(( $(date +%s) - start )) s"
