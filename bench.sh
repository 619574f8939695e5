#!/usr/bin/env bash
# Builds latchkey-bench (and the modules it needs) and runs the side-by-side benchmark: by default Latchkey's Redis
# lock vs Redisson on one redis-server that the benchmark starts on a free port. Prints a Markdown report.
#
#   ./bench.sh                      full run (about 5 minutes: 3 s warm-up + 5 s measure, 3 repeats per row and side)
#   ./bench.sh --quick              smoke run (about 20 s)
#   ./bench.sh --suites redis-sync --warmup 1 --measure 2 --repeats 2
#                                   read/write/fair lock, semaphores, latch vs Redisson (about 3 minutes)
#   ./bench.sh --suites redis-sync --rows semaphore   only the rows whose label contains "semaphore"
#   ./bench.sh --redis redis://host:6379 --measure 10 --out bench.md
#   ./bench.sh --help               every flag
set -euo pipefail
cd "$(dirname "$0")"

scripts/install-test-servers.sh
# Tests are not even compiled: a sibling module's tests must not stop the benchmark.
./mvnw -q -B -ntp install -Dmaven.test.skip=true -pl latchkey-bench -am
# exec:exec forks a plain JVM with the module's runtime class path; "$*" keeps flags as one property value.
exec ./mvnw -q -B -ntp -pl latchkey-bench exec:exec -Dbench.args="$*"
