package io.latchkey.redis;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The remote half of the Redis spin lock: the plain lock's keys and scripts ({@link RedisLockOps}: so a spin lock
 * and a lock of the same name exclude each other, and Redisson's too), but nothing pushes: its
 * {@linkplain #subscribe subscription} subscribes to nothing and never takes effect. The waiting is the engine's, as for
 * every lock; this class only chooses when to look again, as a backoff policy: the n-th busy answer of a wait asks
 * to look again after a wait drawn uniformly from [d/2, d] with d = min(max, initial &times; 2<sup>n</sup>), never
 * longer than the holder's remaining lease (the lock is surely free then); the engine bounds it by the caller's
 * deadline and by its own longest re-check. For deployments where pub/sub is unavailable (a proxy without it, an ACL
 * without channels) or where thousands of short waits would cost more in subscriptions than in retries.
 *
 * <p>The per-waiter state (n) is kept by the engine, not here: a busy answer is {@linkplain Attempt#queued queued}
 * with the number of the next backoff as its entry, which the engine hands back with the waiter's next attempt and
 * forgets with the waiter; {@link #withdraw} has nothing to give up. So nothing stays behind after a grant, a timeout
 * or the client's close.
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

    /** The wait before attempt {@code n + 1} (n &ge; 0), jittered. */
    long backoffNanos(int n) {
        long d = n >= 62 ? maxBackoffNanos : Math.min(maxBackoffNanos, initialBackoffNanos << Math.min(n, 40));
        if (d <= 0) {
            d = maxBackoffNanos;
        }
        return d / 2 + ThreadLocalRandom.current().nextLong(d / 2 + 1);
    }

    @Override
    public boolean singleAttempts() {
        return true;
    }

    /**
     * One attempt: granted, or busy with the next backoff as the hint (at most the holder's remaining lease); the
     * entry counts the busy answers of this wait.
     */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        int n = entry == null ? 0 : Integer.parseInt(entry);
        LockKeys keys = lockOps.keysForAttempt(request.name());
        long sentAt = request.time().nanoTime();
        return lockOps.attempt(keys, request).thenApply(reply -> {
            if (reply > 0) {
                return Attempt.granted(new Grant(request, reply, sentAt, null));
            }
            lockOps.keepKeys(keys);
            long wait = backoffNanos(n);
            if (reply < 0) {
                wait = Math.min(wait, TimeUnit.MILLISECONDS.toNanos(1 - reply));
            }
            return Attempt.queued(Integer.toString(Math.min(n + 1, 62)), wait);
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
