package io.latchkey.redis;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The remote half of the Redis spin lock: the plain lock's keys and scripts ({@link RedisLockOps}: so a spin lock
 * and a lock of the same name exclude each other, and Redisson's too), but nothing pushes: its
 * {@linkplain #subscribe subscription} subscribes to nothing and never takes effect. The waiting is the engine's, as for
 * every lock, and so is the back-off: a busy answer asks for the engine's back-off
 * ({@linkplain Attempt#withBackoff from the initial backoff}) bounded by the maximum backoff and the holder's
 * remaining lease (the lock is surely free then). This class keeps no state per waiter. For deployments where
 * pub/sub is unavailable (a proxy without it, an ACL without channels) or where thousands of short waits would cost
 * more in subscriptions than in retries.
 */
final class RedisSpinLockOps extends ForwardingLockOps {

    private final RedisLockOps lockOps;
    private final long initialBackoffNanos;
    private final long maxBackoffNanos;

    RedisSpinLockOps(RedisLockOps lockOps, long initialBackoffNanos, long maxBackoffNanos) {
        super(lockOps);
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
        this.initialBackoffNanos = initialBackoffNanos;
        this.maxBackoffNanos = maxBackoffNanos;
    }

    /** One attempt: granted, or busy with the engine's back-off, at most the holder's remaining lease. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        LockKeys keys = lockOps.keysForAttempt(request.name());
        long sentAt = request.time().nanoTime();
        return lockOps.attempt(keys, request).thenApply(reply -> {
            if (reply > 0) {
                return Attempt.granted(new Grant(request, reply, sentAt, null));
            }
            lockOps.keepKeys(keys);
            long bound = reply < 0 ? Math.min(maxBackoffNanos, TimeUnit.MILLISECONDS.toNanos(1 - reply))
                    : maxBackoffNanos;
            return Attempt.busy(bound).withBackoff(Math.min(initialBackoffNanos, bound));
        });
    }

    /**
     * Nothing pushes: a subscription that never takes effect, so never fires (a completed one would make the engine
     * look once more at once). A new future each time: the engine's callbacks on it go with it.
     */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return new CompletableFuture<>();
    }

    @Override
    public String toString() {
        return "RedisSpinLockOps{backoff " + TimeUnit.NANOSECONDS.toMillis(initialBackoffNanos) + ".."
                + TimeUnit.NANOSECONDS.toMillis(maxBackoffNanos) + " ms}";
    }
}
