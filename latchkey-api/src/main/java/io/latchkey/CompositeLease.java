package io.latchkey;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the multi-lock and RedLock leases share: a lease made of part leases, the once-only loss signal, and an
 * idempotent release that releases every part (in parallel) before it reports.
 */
abstract class CompositeLease implements LockLease {

    /** Completes the loss signal when the lease is released first, so that loss listeners never run. */
    private static final RuntimeException RELEASED = new RuntimeException("released", null, false, false) { };

    private final String name;
    final List<LockLease> parts;
    /** Completed normally when lost (listeners run), exceptionally when released first (listeners dropped). */
    private final CompletableFuture<Void> lostSignal = new CompletableFuture<>();
    /** The loss listeners not yet run or removed; drained by {@link #markLost}, dropped by a release. */
    private final ConcurrentLinkedQueue<Runnable> listeners = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean releaseStarted = new AtomicBoolean();
    private volatile String lossReason;

    CompositeLease(String name, List<LockLease> parts) {
        this.name = name;
        this.parts = List.copyOf(parts);
    }

    @Override
    public final String lockName() {
        return name;
    }

    @Override
    public boolean isValid() {
        return !lostSignal.isDone();
    }

    @Override
    public final void onLost(Runnable listener) {
        java.util.Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        // the signal may have completed (and the listeners been drained) before the add: whoever removes it decides
        if (lostSignal.isDone() && listeners.remove(listener) && wasLost()) {
            listener.run();
        }
    }

    @Override
    public final void removeOnLost(Runnable listener) {
        listeners.remove(listener);
    }

    /** Marks the lease lost (once; never after a release started) and runs the listeners. */
    final void markLost(String reason) {
        if (!lostSignal.isDone()) {
            lossReason = reason;
            if (lostSignal.complete(null)) {
                Runnable r;
                while ((r = listeners.poll()) != null) {
                    try {
                        r.run();
                    } catch (RuntimeException e) {
                        // a listener must not throw; the others still run
                    }
                }
            }
        }
    }

    final boolean wasLost() {
        return lostSignal.isDone() && !lostSignal.isCompletedExceptionally();
    }

    final String lossReason() {
        return lossReason;
    }

    /** Lets a subclass notice a loss it can compute (an elapsed validity) before the release decides. */
    void checkExpiry() {
    }

    @Override
    public final void release() {
        try {
            releaseAsync().join();
        } catch (RuntimeException e) {
            throw CombinatorArgs.rethrow(e);
        }
    }

    @Override
    public final void close() {
        release();
    }

    @Override
    public final CompletableFuture<Void> releaseAsync() {
        if (!releaseStarted.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        checkExpiry();
        boolean lostBefore = !lostSignal.completeExceptionally(RELEASED);
        if (!lostBefore) {
            listeners.clear(); // released first: loss listeners never run
        }
        List<CompletableFuture<Void>> releases = new ArrayList<>(parts.size());
        for (LockLease part : parts) {
            CompletableFuture<Void> r;
            try {
                r = part.releaseAsync();
            } catch (RuntimeException e) {
                r = CompletableFuture.failedFuture(e);
            }
            releases.add(r);
        }
        return CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]))
                .handle((ignored, ignoredFailure) -> {
                    List<Throwable> failures = new ArrayList<>();
                    int lostParts = 0;
                    for (CompletableFuture<Void> r : releases) {
                        if (r.isCompletedExceptionally()) {
                            Throwable t = CombinatorArgs.unwrap(r.handle((v, e) -> e).join());
                            failures.add(t);
                            if (t instanceof LockLostException) {
                                lostParts++;
                            }
                        }
                    }
                    RuntimeException failure = releaseFailure(lostBefore, lostParts, failures);
                    if (failure != null) {
                        throw failure;
                    }
                    return null;
                });
    }

    /**
     * What {@link #release()} throws once every part's release finished, or {@code null} for none.
     *
     * @param lostBefore whether this lease was known lost before the release started
     * @param lostParts how many parts reported {@link LockLostException} on release
     * @param failures every part's release failure
     */
    abstract RuntimeException releaseFailure(boolean lostBefore, int lostParts, List<Throwable> failures);

    static <T extends Throwable> T withSuppressed(T primary, List<Throwable> others) {
        for (Throwable t : others) {
            if (t != primary) {
                primary.addSuppressed(t);
            }
        }
        return primary;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{name='" + name + "', parts=" + parts.size() + ", valid=" + isValid()
                + "}";
    }
}
