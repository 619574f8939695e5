package io.latchkey.core.internal;

import io.latchkey.core.CountKind;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What differs between the counted resources that {@link CountWaiters} waits for: what one attempt asks the backend
 * and what its success is, and how what it took is given back for a waiter that had left.
 * <ul>
 * <li>{@link CountKind#SEMAPHORE}: {@link RemoteCountOps#tryTake} of the waiter's permits; success is
 *     {@code Boolean.TRUE}; given back with {@link RemoteCountOps#give}.</li>
 * <li>{@link CountKind#PERMITS}: {@link RemoteCountOps#tryLease} of one permit with a fresh id; success is the
 *     {@link Grant}; given back with {@link RemoteCountOps#release(String, String)}.</li>
 * <li>{@link CountKind#LATCH}: {@link RemoteCountOps#getCount} is 0; success is {@code Boolean.TRUE} for every
 *     waiter ({@link #servesAll}); nothing to give back.</li>
 * </ul>
 */
final class CountKinds {
    private static final Logger log = LoggerFactory.getLogger(CountKinds.class);

    private CountKinds() {
    }

    /** Whether one success serves every waiter of the name (a latch that opened), not only the one it was made for. */
    static boolean servesAll(CountKind kind) {
        return kind == CountKind.LATCH;
    }

    /** One attempt for {@code w}: completes with its success, or {@code null} when it found nothing. */
    @SuppressWarnings("unchecked")
    static CompletableFuture<Object> attempt(LockEngine engine, CountWaiters.Key key, CountWaiters.Waiter w) {
        RemoteCountOps ops = key.ops();
        return switch (key.kind()) {
            case SEMAPHORE -> (CompletableFuture<Object>) (CompletableFuture<?>) ops.tryTake(key.name(), w.permits)
                    .thenApply(ok -> Boolean.TRUE.equals(ok) ? Boolean.TRUE : null);
            case PERMITS -> (CompletableFuture<Object>) (CompletableFuture<?>) ops.tryLease(key.name(),
                    engine.newPermitId(), w.leaseMillis, w.watchdog);
            case LATCH -> (CompletableFuture<Object>) (CompletableFuture<?>) ops.getCount(key.name())
                    .thenApply(c -> c != null && c <= 0 ? Boolean.TRUE : null);
        };
    }

    /**
     * Gives back what an attempt took for a waiter that had left: a semaphore's permits, a leased permit. Sent
     * once; a failure is logged (a leased permit still ends with its lease).
     */
    static CompletableFuture<?> giveBack(CountWaiters.Key key, CountWaiters.Waiter w, Object result) {
        CompletableFuture<?> f;
        String what;
        if (result instanceof Grant g) {
            what = "permit " + g.ownerId();
        } else if (key.kind() == CountKind.SEMAPHORE && result != null) {
            what = w.permits + " permit(s)";
        } else {
            return CompletableFuture.completedFuture(null);
        }
        try {
            f = result instanceof Grant g ? key.ops().release(key.name(), g.ownerId())
                    : key.ops().give(key.name(), w.permits);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        String taken = what;
        f.whenComplete((r, e) -> {
            if (e != null) {
                log.warn("giving back {} of '{}', taken for a waiter that had left, failed: {}", taken, key.name(),
                        LockEngine.unwrap(e).toString());
            }
        });
        return f;
    }
}
