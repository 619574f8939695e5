package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long a waiter on another client takes to get the lock after the holder starts releasing it: the time from
 * just before {@code release()} to the waiter's {@code tryAcquire} returning, over several rounds with the roles
 * alternating between clients.
 */
final class WakeUpLatencyCheck {

    static final String WAKE_UP = "wake-up latency";
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private WakeUpLatencyCheck() {
    }

    /** @param locks the same name on at least two clients */
    static CheckResult run(List<DistributedLock> locks, int rounds, boolean pushWakeUp) throws InterruptedException {
        Latencies latencies = new Latencies();
        for (int round = 0; round < rounds; round++) {
            DistributedLock holder = locks.get(round % locks.size());
            DistributedLock waiter = locks.get((round + 1) % locks.size());
            LockLease held = holder.acquire();
            AtomicLong acquiredAt = new AtomicLong();
            Thread w = VerifyThreads.start("latchkey-verify-wake-up-waiter", () -> {
                try {
                    Optional<LockLease> got = waiter.tryAcquire(PATIENCE);
                    if (got.isPresent()) {
                        acquiredAt.set(System.nanoTime());
                        got.get().release();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            VerifyThreads.awaitParked(w, 5_000);
            long releasing = System.nanoTime();
            held.release();
            w.join(PATIENCE.toMillis() + 5_000);
            if (acquiredAt.get() == 0) {
                w.interrupt();
                return CheckResult.fail(WAKE_UP, String.format(Locale.ROOT, "round %d: the waiter was not woken "
                        + "within %s of the release", round + 1, Durations.format(PATIENCE)));
            }
            latencies.record(acquiredAt.get() - releasing);
        }
        return CheckResult.pass(WAKE_UP, String.format(Locale.ROOT, "%d hand-offs across clients: p50 %s, p99 %s, "
                + "max %s%s", rounds, Durations.latency(latencies.percentile(0.50)),
                Durations.latency(latencies.percentile(0.99)), Durations.latency(latencies.max()),
                pushWakeUp ? "" : " (no push wake-up: waiters poll)"));
    }
}
