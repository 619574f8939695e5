package io.latchkey.redis;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The remote half of the Redis spin lock: the plain lock's keys and scripts ({@link RedisLockOps}: so a spin lock
 * and a lock of the same name exclude each other, and Redisson's too), but a waiter never subscribes to anything.
 * It attempts again after an exponential backoff with jitter: the n-th wait is drawn uniformly from
 * [d/2, d] with d = min(max, initial &times; 2<sup>n</sup>), never longer than the holder's remaining lease
 * (the lock is surely free then) nor the caller's deadline. For deployments where pub/sub is unavailable (a proxy
 * without it, an ACL without channels) or where thousands of short waits would cost more in subscriptions than
 * in retries.
 */
final class RedisSpinLockOps implements RemoteLockOps {

    private final RedisLockOps lockOps;
    private final ScheduledExecutorService scheduler;
    private final long initialBackoffNanos;
    private final long maxBackoffNanos;

    RedisSpinLockOps(RedisLockOps lockOps, ScheduledExecutorService scheduler, long initialBackoffNanos,
                     long maxBackoffNanos) {
        if (initialBackoffNanos <= 0) {
            throw new IllegalArgumentException(String.format("initialBackoff must be positive but was %d ns",
                    initialBackoffNanos));
        }
        if (maxBackoffNanos < initialBackoffNanos) {
            throw new IllegalArgumentException(String.format(
                    "maxBackoff must be at least initialBackoff (%d ns) but was %d ns", initialBackoffNanos,
                    maxBackoffNanos));
        }
        this.lockOps = lockOps;
        this.scheduler = scheduler;
        this.initialBackoffNanos = initialBackoffNanos;
        this.maxBackoffNanos = maxBackoffNanos;
    }

    @Override
    public CompletableFuture<Grant> acquire(AcquireRequest request) {
        return new Spin(request).start();
    }

    /** The wait before attempt {@code n + 1} (n &ge; 0), jittered. */
    long backoffNanos(int n) {
        long d = n >= 62 ? maxBackoffNanos : Math.min(maxBackoffNanos, initialBackoffNanos << Math.min(n, 40));
        if (d <= 0) {
            d = maxBackoffNanos;
        }
        return d / 2 + ThreadLocalRandom.current().nextLong(d / 2 + 1);
    }

    /** One acquire: attempts chained by the timer, no thread of its own. */
    private final class Spin {
        private final AcquireRequest request;
        private final LockKeys keys;
        private final CompletableFuture<Grant> result = new CompletableFuture<>();
        private volatile ScheduledFuture<?> timer;
        private int attempts;

        Spin(AcquireRequest request) {
            this.request = request;
            this.keys = lockOps.keys(request.name());
        }

        CompletableFuture<Grant> start() {
            attempt();
            request.cancelled().thenRun(() -> {
                ScheduledFuture<?> t = timer;
                if (t != null && t.cancel(false)) {
                    result.complete(null);
                }
            });
            return result;
        }

        private void attempt() {
            if (request.isCancelled()) {
                result.complete(null);
                return;
            }
            long sentAt = request.time().nanoTime();
            lockOps.tryAcquire(keys, request).whenComplete((reply, error) -> {
                if (error != null) {
                    result.completeExceptionally(error);
                } else if (reply > 0) {
                    Grant grant = new Grant(request, reply, sentAt, keys);
                    if (!result.complete(grant)) {
                        // The wait was given up while this attempt was out: cancel(false) on a timer task that is
                        // already running still succeeds, so the cancel path may have completed the result.
                        lockOps.release(grant);
                    }
                } else if (request.isCancelled() || request.isExpired()) {
                    result.complete(null);
                } else {
                    long delay = backoffNanos(attempts++);
                    if (reply < 0) {
                        delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(-reply + 1));
                    }
                    delay = Math.min(delay, request.remainingNanos());
                    try {
                        timer = scheduler.schedule(this::attempt, delay, TimeUnit.NANOSECONDS);
                    } catch (RejectedExecutionException e) {
                        result.complete(null); // closing
                        return;
                    }
                    if (request.isCancelled() && timer.cancel(false)) {
                        result.complete(null);
                    }
                }
            });
        }
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        return lockOps.release(grant);
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return lockOps.renew(grants);
    }

    @Override
    public boolean supportsHandOff() {
        return true;
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        return lockOps.handOff(from, request);
    }

    @Override
    public CompletableFuture<String> describeHolder(String name) {
        return lockOps.describeHolder(name);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return lockOps.isLocked(name);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        return lockOps.forceUnlock(name);
    }

    @Override
    public String toString() {
        return "RedisSpinLockOps{backoff " + TimeUnit.NANOSECONDS.toMillis(initialBackoffNanos) + ".."
                + TimeUnit.NANOSECONDS.toMillis(maxBackoffNanos) + " ms}";
    }
}
