package io.latchkey.core.internal;

import io.latchkey.core.CountKind;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counted resources as {@link WaitKind}s of the one waiting machine ({@link NameState}): what one attempt asks
 * the backend, what its success gives the waiter, and how what it took is given back for a waiter that had left.
 * A busy answer is re-checked every {@link RemoteCountOps#recheckMillis()}, sooner at a lease attempt's hint (the
 * earliest permit lease end).
 * <ul>
 * <li>{@link CountKind#SEMAPHORE}: {@link RemoteCountOps#tryTake} of the waiter's permits; success is
 *     {@code Boolean.TRUE}; given back with {@link RemoteCountOps#give}. Released permits go to this client's
 *     waiters first ({@link CountHandOff}).</li>
 * <li>{@link CountKind#PERMITS}: {@link RemoteCountOps#tryLease} of one permit with a fresh id; success is the
 *     {@link Grant}; given back with {@link RemoteCountOps#release(String, String)}.</li>
 * <li>{@link CountKind#LATCH}: {@link RemoteCountOps#getCount} is 0; success is {@code Boolean.TRUE} for every
 *     waiter ({@link #servesAll}); nothing to give back.</li>
 * </ul>
 * The caller's side ({@link #await}, {@link #submit}) is {@link CallerWaits}, shared with locks.
 *
 * @param <R> what a waiter gets: {@code Boolean.TRUE} (a semaphore's permits, a latch at zero) or a permit's grant
 */
final class CountKinds<R> implements WaitKind<R> {
    private static final Logger log = LoggerFactory.getLogger(CountKinds.class);

    static final CountKinds<Boolean> SEMAPHORE = new CountKinds<>(CountKind.SEMAPHORE, g -> Boolean.TRUE, b -> TOOK);
    static final CountKinds<Grant> PERMITS = new CountKinds<>(CountKind.PERMITS, g -> g, g -> g);
    static final CountKinds<Boolean> LATCH = new CountKinds<>(CountKind.LATCH, g -> Boolean.TRUE, b -> TOOK);

    private final CountKind kind;
    /** What a waiter gets for what a success took. */
    private final Function<Grant, R> result;
    /** What a success that gave a waiter {@code R} took (for the give-back after a give-up). */
    private final Function<R, Grant> taken;

    private CountKinds(CountKind kind, Function<Grant, R> result, Function<R, Grant> taken) {
        this.kind = kind;
        this.result = result;
        this.taken = taken;
    }

    /**
     * Queues a waiter for {@code permits} of {@code key} and blocks until it completes: what its kind gives for a
     * success, or {@code null} when its wait ran out. On interrupt the waiter leaves; what a success that raced it took
     * is given back before {@link InterruptedException} is thrown (the flag cleared, as {@code java.util.concurrent}
     * does), so an interrupted acquire takes nothing.
     *
     * @param waitNanos negative to wait as long as needed, zero for a single look (refused at once while a blocked
     *                  waiter of this client waits for the name)
     */
    static <R> R await(LockEngine engine, NameKey.Count<R> key, int permits, long waitNanos)
            throws InterruptedException {
        notInterrupted(key);
        return await(engine, key, WaitStart.count(engine, key, permits, 0, false, waitNanos));
    }

    /** As {@link #await}, for one leased permit of {@code leaseMillis} ({@code watchdog}: renewed by the watchdog). */
    static Grant awaitLease(LockEngine engine, NameKey.Count<Grant> key, long leaseMillis, boolean watchdog,
                            long waitNanos) throws InterruptedException {
        notInterrupted(key);
        return await(engine, key, WaitStart.count(engine, key, 1, leaseMillis, watchdog, waitNanos));
    }

    private static void notInterrupted(NameKey key) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for '" + key.name() + "'");
        }
    }

    private static <R> R await(LockEngine engine, NameKey.Count<R> key, Waiter<R> w) throws InterruptedException {
        return CallerWaits.await(engine, w.future, key.name(), true,
                () -> w.nameState.cancel(w), late -> key.kind().giveBack(w.nameState, w, key.kind().taken.apply(late)));
    }

    /**
     * Queues a waiter without blocking: the returned future completes with {@code map} applied to what the kind gives
     * for a success ({@code null} when the wait ran out) on a Latchkey thread. Cancelling it withdraws the waiter; if a
     * success raced the cancellation, what it took is given back (as after an interrupt).
     */
    static <R, T> CompletableFuture<T> submit(LockEngine engine, NameKey.Count<R> key, int permits, long waitNanos,
                                              Function<R, T> map) {
        return submit(key, WaitStart.count(engine, key, permits, 0, false, waitNanos), map);
    }

    /** As {@link #submit}, for one leased permit of {@code leaseMillis} ({@code watchdog}: renewed by the watchdog). */
    static <T> CompletableFuture<T> submitLease(LockEngine engine, NameKey.Count<Grant> key, long leaseMillis,
                                                boolean watchdog, long waitNanos, Function<Grant, T> map) {
        return submit(key, WaitStart.count(engine, key, 1, leaseMillis, watchdog, waitNanos), map);
    }

    private static <R, T> CompletableFuture<T> submit(NameKey.Count<R> key, Waiter<R> w, Function<R, T> map) {
        return CallerWaits.async(w.future, map, () -> w.nameState.cancel(w),
                r -> key.kind().giveBack(w.nameState, w, key.kind().taken.apply(r)));
    }

    @Override
    public CompletableFuture<Look> attempt(NameState s, Waiter<R> w, String entry) {
        RemoteCountOps ops = s.countOps;
        long recheck = TimeUnit.MILLISECONDS.toNanos(Math.max(1, ops.recheckMillis()));
        return switch (kind) {
            case SEMAPHORE -> LockEngine.callRemote(() -> ops.tryTake(s.name, w.permits, w.request.attemptId()))
                    .thenApply(ok -> new Look(Boolean.TRUE.equals(ok) ? TOOK : null, recheck, null));
            case PERMITS -> {
                String permitId = s.engine.newPermitId();
                w.leasing(permitId); // the attempt's id: an unanswered lease is released by it
                yield LockEngine.callRemote(() -> ops.tryLease(s.name, permitId, w.request.leaseMillis(),
                        w.request.watchdog())).thenApply(a -> a == null ? null : new Look(a.grant(),
                        a.recheckNanos() > 0 ? Math.min(a.recheckNanos(), recheck) : recheck, null));
            }
            case LATCH -> LockEngine.callRemote(() -> ops.getCount(s.name))
                    .thenApply(c -> new Look(c != null && c <= 0 ? TOOK : null, recheck, null));
        };
    }

    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(NameState s, Runnable changed) {
        return s.countOps.subscribe(s.name, changed);
    }

    @Override
    public R grantedLocked(NameState s, Waiter<R> w, Grant taken) {
        return result.apply(taken);
    }

    @Override
    public boolean servesAll() {
        return kind == CountKind.LATCH;
    }

    /**
     * Undoes an unanswered take (by its attempt id) or lease (by its permit id, which is its attempt's own); a latch's
     * look takes nothing.
     */
    @Override
    public void cleanUp(NameState s, Waiter<?> w) {
        if (kind == CountKind.SEMAPHORE) {
            String id = w.request.attemptId();
            s.engine.cleanUps.cleanUp(String.format("clean-up of the unanswered take %s of %d permit(s) of '%s'", id,
                    w.permits, s.name), () -> s.countOps.cleanUpTake(s.name, w.permits, id));
        } else if (kind == CountKind.PERMITS && w.permitId() != null) {
            String id = w.permitId();
            s.engine.cleanUps.cleanUp(String.format("clean-up of the unanswered lease of permit %s of '%s'", id,
                    s.name), () -> s.countOps.release(s.name, id));
        }
    }

    /**
     * Gives back what an attempt took for a waiter that had left: a semaphore's permits, a leased permit. Sent
     * once; a failure is logged (a leased permit still ends with its lease).
     */
    @Override
    public CompletableFuture<?> giveBack(NameState s, Waiter<?> w, Grant taken) {
        CompletableFuture<?> f;
        String what;
        if (kind == CountKind.PERMITS && taken != null) {
            what = "permit " + taken.ownerId();
            f = s.engine.writes.call(() -> s.countOps.release(s.name, taken.ownerId()));
        } else if (kind == CountKind.SEMAPHORE && taken != null) {
            what = w.permits + " permit(s)";
            f = s.engine.writes.call(() -> s.countOps.give(s.name, w.permits));
        } else {
            return CompletableFuture.completedFuture(null);
        }
        return f.whenComplete((r, e) -> {
            if (e != null) {
                log.warn("giving back {} of '{}', taken for a waiter that had left, failed: {}", what, s.name,
                        LockEngine.unwrap(e).toString());
            }
        });
    }
}
