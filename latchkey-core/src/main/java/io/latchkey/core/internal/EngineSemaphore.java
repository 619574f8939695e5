package io.latchkey.core.internal;

import io.latchkey.DistributedSemaphore;
import io.latchkey.core.Arguments;
import io.latchkey.core.RemoteCountOps;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The engine's {@link DistributedSemaphore} on a backend's {@link RemoteCountOps}: argument checks, then either
 * one bounded remote call (release, counts) or a wait in the name's {@link NameState} (acquire).
 *
 * <p>Permits are not owned and not leased: any client may release them, and a holder that crashes before
 * releasing keeps them taken (as with Redisson's {@code RSemaphore}; use a {@link io.latchkey.PermitExpirableSemaphore}
 * when that matters). Waiters of one client queue locally in arrival order and send one attempt at a time; a
 * release anywhere wakes them through the backend's subscription. A release in a client whose own threads wait for
 * the name hands its permits straight to them, head first, without a round trip (at most
 * {@link LockEngine#MAX_LOCAL_HAND_OFFS} times in a row; then a release goes to the backend so that other clients'
 * waiters get their turn). A timed-out or interrupted acquire takes nothing.
 * Permit counts of {@code acquire}, {@code tryAcquire} and {@code release} must be positive (as on every backend
 * before the counted contract).
 */
final class EngineSemaphore implements DistributedSemaphore {

    private final LockEngine engine;
    private final RemoteCountOps ops;
    private final String name;
    private final NameKey.Count<Boolean> key;
    private final PermitCounts counts;

    EngineSemaphore(LockEngine engine, RemoteCountOps ops, String name) {
        this.engine = engine;
        this.ops = ops;
        this.counts = new PermitCounts(engine, ops, name);
        this.name = name;
        this.key = new NameKey.Count<>(ops, name, CountKinds.SEMAPHORE);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void acquire() throws InterruptedException {
        acquire(1);
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        take(Arguments.positive("permits", permits), -1);
    }

    @Override
    public boolean tryAcquire() {
        try {
            return take(1, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException {
        Arguments.positive("permits", permits);
        return take(permits, Checks.waitNanos(waitTime));
    }

    /** @param waitNanos negative to wait as long as needed, 0 for a single attempt */
    private boolean take(int permits, long waitNanos) throws InterruptedException {
        engine.checkOpen();
        return CountKinds.await(engine, key, permits, waitNanos) != null;
    }

    @Override
    public CompletableFuture<Void> acquireAsync(int permits) {
        Arguments.positive("permits", permits);
        return takeAsync(permits, -1, r -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration waitTime) {
        Arguments.positive("permits", permits);
        return takeAsync(permits, Checks.waitNanos(waitTime), r -> r != null);
    }

    /** Cancelling the result withdraws the waiter (see {@link CountKinds#submit}). */
    private <T> CompletableFuture<T> takeAsync(int permits, long waitNanos, java.util.function.Function<Boolean, T> map) {
        engine.checkOpen();
        return CountKinds.submit(engine, key, permits, waitNanos, map);
    }

    @Override
    public CompletableFuture<Void> releaseAsync(int permits) {
        Arguments.positive("permits", permits);
        engine.checkOpen();
        CountHandOff.HandOff h = handOff(permits);
        CompletableFuture<Void> given = h.left() == 0 ? CompletableFuture.completedFuture(null)
                : engine.boundedRemote(ops.give(name, h.left()), "release", name);
        if (h.settled() == null) {
            return given;
        }
        CompletableFuture<Void> settled = engine.boundedRemote(h.settled(), "release", name)
                .exceptionally(e -> null); // a slow give-back is logged where it is sent; the release itself is done
        return given.thenCombine(settled, (a, b) -> null);
    }

    @Override
    public void release() {
        release(1);
    }

    @Override
    public void release(int permits) {
        Arguments.positive("permits", permits);
        engine.checkOpen();
        CountHandOff.HandOff h = handOff(permits);
        if (h.left() > 0) {
            engine.awaitRemote(ops.give(name, h.left()), "release", name);
        }
        if (h.settled() != null) {
            // a waiter it served had an attempt out: that attempt's answer, and the give-back of what it took, first
            engine.awaitQuietly(h.settled(), "release", name);
        }
    }

    /**
     * Hands released permits to this client's waiters of the name first (see {@link CountHandOff}); a
     * release returns only once an attempt still out for a waiter it served has answered and given back what it
     * took, so that no permit is missing after every holder released.
     */
    private CountHandOff.HandOff handOff(int permits) {
        return CountHandOff.handOff(engine.nameStates.get(key), permits);
    }

    @Override
    public int availablePermits() {
        return counts.available();
    }

    @Override
    public boolean trySetPermits(int permits) {
        return counts.trySet(permits);
    }

    @Override
    public void addPermits(int permits) {
        counts.add(permits);
    }

    @Override
    public int drainPermits() {
        engine.checkOpen();
        return engine.awaitRemote(ops.drainPermits(name), "drainPermits", name);
    }

    @Override
    public String toString() {
        return "Semaphore{name='" + name + "', backend=" + engine.backendName + "}";
    }
}
