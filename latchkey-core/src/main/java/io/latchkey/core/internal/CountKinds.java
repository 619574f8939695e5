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
 */
final class CountKinds implements WaitKind {
    private static final Logger log = LoggerFactory.getLogger(CountKinds.class);

    private static final CountKinds SEMAPHORE = new CountKinds(CountKind.SEMAPHORE);
    private static final CountKinds PERMITS = new CountKinds(CountKind.PERMITS);
    private static final CountKinds LATCH = new CountKinds(CountKind.LATCH);

    private final CountKind kind;

    private CountKinds(CountKind kind) {
        this.kind = kind;
    }

    static CountKinds of(CountKind kind) {
        return switch (kind) {
            case SEMAPHORE -> SEMAPHORE;
            case PERMITS -> PERMITS;
            case LATCH -> LATCH;
        };
    }

    /**
     * Queues a waiter for {@code permits} of {@code key} (a lease of {@code leaseMillis} for a permit) and blocks until
     * it completes: the attempt's result, or {@code null} when its wait ran out. On interrupt the waiter leaves; what
     * a success that raced it took is given back before {@link InterruptedException} is thrown (the flag cleared, as
     * {@code java.util.concurrent} does), so an interrupted acquire takes nothing.
     *
     * @param waitNanos negative to wait as long as needed, zero for a single look
     * @param waits whether it waits at all: a single look of a semaphore does not (it is refused at once while a
     *              blocked waiter of this client waits for the name)
     */
    static Object await(LockEngine engine, NameState.NameKey key, int permits, long leaseMillis, boolean watchdog,
                        long waitNanos, boolean waits) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for '" + key.name() + "'");
        }
        Waiter w = WaitStart.enqueue(engine, key, engine.clientId, false, leaseMillis, watchdog, waitNanos, false,
                permits, waits);
        return CallerWaits.await(engine, w.future, key.name(), true, () -> w.nameState.cancel(w),
                late -> w.nameState.kind.giveBack(w.nameState, w, late));
    }

    /**
     * Queues a waiter without blocking: the returned future completes with {@code map} applied to the attempt's
     * result ({@code null} when the wait ran out) on a Latchkey thread. Cancelling it withdraws the waiter; if a
     * success raced the cancellation, what it took is given back (as after an interrupt).
     */
    static <T> CompletableFuture<T> submit(LockEngine engine, NameState.NameKey key, int permits, long leaseMillis,
                                           boolean watchdog, long waitNanos, boolean waits, Function<Object, T> map) {
        Waiter w = WaitStart.enqueue(engine, key, engine.clientId, false, leaseMillis, watchdog, waitNanos, false,
                permits, waits);
        return CallerWaits.async(w.future, map, () -> w.nameState.cancel(w),
                r -> w.nameState.kind.giveBack(w.nameState, w, r));
    }

    @Override
    public CompletableFuture<Look> attempt(NameState s, Waiter w, String entry) {
        RemoteCountOps ops = s.countOps;
        long recheck = TimeUnit.MILLISECONDS.toNanos(Math.max(1, ops.recheckMillis()));
        return switch (kind) {
            case SEMAPHORE -> LockEngine.callRemote(() -> ops.tryTake(s.name, w.permits, w.request.attemptId()))
                    .thenApply(ok -> new Look(Boolean.TRUE.equals(ok) ? Boolean.TRUE : null, recheck, null));
            case PERMITS -> {
                String permitId = s.engine.newPermitId();
                w.permitId = permitId; // the attempt's id: an unanswered lease is released by it
                yield LockEngine.callRemote(() -> ops.tryLease(s.name, permitId, w.request.leaseMillis(),
                        w.request.watchdog())).thenApply(a -> a == null ? null : new Look(a.grant(),
                        a.recheckNanos() > 0 ? Math.min(a.recheckNanos(), recheck) : recheck, null));
            }
            case LATCH -> LockEngine.callRemote(() -> ops.getCount(s.name))
                    .thenApply(c -> new Look(c != null && c <= 0 ? Boolean.TRUE : null, recheck, null));
        };
    }

    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(NameState s, Runnable changed) {
        return s.countOps.subscribe(s.name, changed);
    }

    @Override
    public Object grantedLocked(NameState s, Waiter w, Object taken) {
        return taken;
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
    public void cleanUp(NameState s, Waiter w) {
        if (kind == CountKind.SEMAPHORE) {
            String id = w.request.attemptId();
            s.engine.cleanUps.cleanUp(String.format("clean-up of the unanswered take %s of %d permit(s) of '%s'", id,
                    w.permits, s.name), () -> s.countOps.cleanUpTake(s.name, w.permits, id));
        } else if (kind == CountKind.PERMITS && w.permitId != null) {
            String id = w.permitId;
            s.engine.cleanUps.cleanUp(String.format("clean-up of the unanswered lease of permit %s of '%s'", id,
                    s.name), () -> s.countOps.release(s.name, id));
        }
    }

    /**
     * Gives back what an attempt took for a waiter that had left: a semaphore's permits, a leased permit. Sent
     * once; a failure is logged (a leased permit still ends with its lease).
     */
    @Override
    public CompletableFuture<?> giveBack(NameState s, Waiter w, Object taken) {
        CompletableFuture<?> f;
        String what;
        if (taken instanceof Grant g) {
            what = "permit " + g.ownerId();
            f = LockEngine.callRemote(() -> s.countOps.release(s.name, g.ownerId()));
        } else if (kind == CountKind.SEMAPHORE && taken != null) {
            what = w.permits + " permit(s)";
            f = LockEngine.callRemote(() -> s.countOps.give(s.name, w.permits));
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
