package io.latchkey.bench.redis.scale;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Part 2: {@code held} locks held at once under the watchdog by the side's clients (each thread holds its share,
 * and releases it on the same thread), then a quiet window of three renewal intervals: how many commands the
 * server received for the renewals ({@code INFO commandstats}: scripts, i.e. round trips), the server's CPU,
 * its memory per held lock, and the client heap per held lock (used heap after full GCs, whole JVM, minus the same
 * before; the handles the application keeps, one lock object per held lock, included).
 */
final class HeldLocks {

    record Result(String side, int held, double acquireSeconds, double intervals, long scripts, long commands,
                  double serverCpuMs, long serverBytes, long heapBytes, int lost) {
        double scriptsPerInterval() {
            return scripts / intervals;
        }

        double scriptsPer100HoldsPerInterval() {
            return scriptsPerInterval() / (held / 100.0);
        }

        double serverCpuMsPerInterval() {
            return serverCpuMs / intervals;
        }

        double serverBytesPerLock() {
            return (double) serverBytes / held;
        }

        double heapBytesPerLock() {
            return (double) heapBytes / held;
        }
    }

    private HeldLocks() {
    }

    static Result run(ScaleServer server, ScaleSide side, int held, int threads, Duration watchdog)
            throws InterruptedException {
        // Warm each client's path once so that lazily built state is not counted per lock.
        for (int t = 0; t < threads; t++) {
            side.lockUnlock(t, "held-warm-" + t);
        }
        long heapBefore = usedHeap();
        long memoryBefore = server.usedMemory();
        CountDownLatch acquired = new CountDownLatch(threads);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger lost = new AtomicInteger();
        long start = System.nanoTime();
        List<Thread> workers = Parallel.start("scale-held", threads, thread -> {
            List<ScaleSide.Held> mine = new ArrayList<>(held / threads + 1);
            try {
                for (int i = thread; i < held; i += threads) {
                    mine.add(side.hold(thread, "held:" + i));
                }
            } finally {
                acquired.countDown();
            }
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (ScaleSide.Held h : mine) {
                try {
                    h.release();
                } catch (IllegalMonitorStateException e) {
                    // Lost before the release (Latchkey tells: LockLostException; Redisson: not held any more).
                    lost.incrementAndGet();
                }
            }
        }, failure);
        acquired.await();
        double acquireSeconds = (System.nanoTime() - start) / 1e9;
        try {
            if (failure.get() != null) {
                throw new IllegalStateException("acquiring the held locks failed", failure.get());
            }
            long memoryAfter = server.usedMemory();
            // Renewals start one interval after each acquisition: let the first round pass, then count whole rounds.
            Duration interval = watchdog.dividedBy(3);
            Thread.sleep(interval.toMillis());
            Map<String, Long> callsBefore = server.commandCalls();
            double cpuBefore = server.cpuSeconds();
            long windowStart = System.nanoTime();
            Thread.sleep(interval.multipliedBy(3).toMillis());
            Map<String, Long> callsAfter = server.commandCalls();
            double cpuAfter = server.cpuSeconds();
            double intervals = (System.nanoTime() - windowStart) / (double) interval.toNanos();
            // After the window: the full collections' pauses must not delay the renewals counted above.
            long heapAfter = usedHeap();
            long scripts = delta(callsBefore, callsAfter, "evalsha") + delta(callsBefore, callsAfter, "eval");
            long commands = 0;
            for (String command : callsAfter.keySet()) {
                if (!command.equals("info")) {
                    commands += delta(callsBefore, callsAfter, command);
                }
            }
            release.countDown();
            Parallel.join(workers, failure);
            return new Result(side.label, held, acquireSeconds, intervals, scripts, commands,
                    (cpuAfter - cpuBefore) * 1000, memoryAfter - memoryBefore, heapAfter - heapBefore, lost.get());
        } finally {
            release.countDown();
        }
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
        return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
    }

    /** Used heap after full collections, settled. */
    static long usedHeap() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
