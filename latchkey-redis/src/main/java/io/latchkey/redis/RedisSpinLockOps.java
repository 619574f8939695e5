package io.latchkey.redis;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The remote half of the Redis spin lock: the plain lock's keys and scripts ({@link RedisLockOps}: so a spin lock
 * and a lock of the same name exclude each other, and Redisson's too), but nothing pushes: its
 * {@linkplain #subscribe subscription} subscribes to nothing and never takes effect. The waiting is the engine's, as for
 * every lock, and so is the back-off: a busy answer asks for the engine's back-off
 * ({@linkplain Attempt#withBackoff from the initial backoff}) bounded by the maximum backoff and the holder's
 * remaining lease (the lock is surely free then); the engine grows each waiter's wait with the time it has waited,
 * draws it from [d/2, d], and bounds it by the caller's deadline and its own longest re-check. This class keeps no
 * state per waiter. For deployments where pub/sub is unavailable (a proxy without it, an ACL without channels) or
 * where thousands of short waits would cost more in subscriptions than in retries.
 */
final class RedisSpinLockOps implements RemoteLockOps {

    private final RedisLockOps lockOps;
    private final long initialBackoffNanos;
    private final long maxBackoffNanos;

    RedisSpinLockOps(RedisLockOps lockOps, long initialBackoffNanos, long maxBackoffNanos) {
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

    @Override
    public boolean singleAttempts() {
        return true;
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

    /** The plain lock's clean-up: a spin lock's hold is the plain lock's hash. */
    @Override
    public CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest request) {
        return lockOps.cleanUpAttempt(request);
    }

    /**
     * Nothing pushes: a subscription that never takes effect, so never fires (the waiter looks again at its backoff
     * only). A completed one would make the engine look once more at once, for a change before it took effect. A new
     * future each time: the engine's callbacks on it go with it.
     */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return new CompletableFuture<>();
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
    public CompletableFuture<io.latchkey.LockHolder> holder(String name) {
        return lockOps.holder(name);
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
