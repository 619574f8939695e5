package io.latchkey.bench.redis.scale;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Part 3: {@code waiters} threads spread over the side's clients wait on one name, held by another client; then it
 * is released and each waiter takes it {@code rounds} times (lock, unlock, queue again). Hand-off = from one
 * holder's unlock call to the next holder's return from lock; wait = from a waiter's lock call (or the first
 * release, for the first round) to its return. The longest wait shows whether a waiter starves.
 */
final class Waiters {

    record Result(String side, int waiters, int rounds, double seconds, long[] handOffNanos, long[] waitNanos) {
        static long percentile(long[] sorted, double p) {
            return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
        }
    }

    private Waiters() {
    }

    static Result run(ScaleSide side, int waiters, int rounds, int clients) throws InterruptedException {
        String name = "one-name";
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // The first holder is a client of its own (index `clients` wraps to 0 on a side with that many clients).
        var first = Parallel.start("scale-first-holder", 1, t -> {
            ScaleSide.Held held = side.hold(clients, name);
            holding.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            held.release();
        }, failure);
        holding.await();
        AtomicLong lastRelease = new AtomicLong();
        AtomicLong startedAt = new AtomicLong(Long.MAX_VALUE);
        long[] handOffs = new long[waiters * rounds];
        long[] waits = new long[waiters * rounds];
        Arrays.fill(handOffs, -1);
        CountDownLatch ready = new CountDownLatch(waiters);
        var threads = Parallel.start("scale-waiter", waiters, w -> {
            ready.countDown();
            for (int r = 0; r < rounds; r++) {
                long asked = System.nanoTime();
                ScaleSide.Held held = side.hold(w % clients, name);
                long got = System.nanoTime();
                waits[w * rounds + r] = got - Math.max(asked, startedAt.get());
                long previous = lastRelease.get();
                if (previous > 0) {
                    handOffs[w * rounds + r] = got - previous;
                }
                lastRelease.set(System.nanoTime());
                held.release();
            }
        }, failure);
        ready.await();
        // Let every waiter reach its lock call and queue (generous on a loaded 2-core machine).
        Thread.sleep(Math.max(1_000, waiters * 2L));
        long start = System.nanoTime();
        startedAt.set(start);
        lastRelease.set(start);
        release.countDown();
        Parallel.join(first, failure);
        Parallel.join(threads, failure);
        double seconds = (System.nanoTime() - start) / 1e9;
        long[] handOffSorted = Arrays.stream(handOffs).filter(v -> v >= 0).sorted().toArray();
        long[] waitSorted = Arrays.stream(waits).sorted().toArray();
        return new Result(side.label, waiters, rounds, seconds, handOffSorted, waitSorted);
    }
}
