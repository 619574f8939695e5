package io.latchkey.core;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of one lock kind for a backend that arbitrates in this JVM with a {@link NameArbiter} (the
 * {@code mem://} server, the file backend): it answers {@linkplain #singleAttempts() single attempts}, and its
 * {@link Kind} says whether it is shared, fair and hands off. All four kinds of one backend share one arbiter per
 * name, so a plain, a fair and a read-write lock of one name exclude each other. A queued attempt's entry is its
 * owner id, so a withdrawal without an entry withdraws the request's owner.
 */
public abstract class ArbitratedLockOps implements RemoteLockOps {

    /** The lock kinds. */
    public enum Kind {
        /** The plain lock; the engine may pass it between one client's threads without freeing it. */
        LOCK("lock", false, false, true),
        /** Every waiter queues on its own, no local hand-off (it would overtake): FIFO across clients. */
        FAIR("fair-lock", false, true, false),
        /** The read half of a read-write lock: a shared hold. */
        READ("read-lock", true, false, false),
        /** The write half; no hand-off (its holder may also hold the read lock: downgrade). */
        WRITE("write-lock", false, false, false);

        private final String label;
        private final boolean shared;
        private final boolean fair;
        private final boolean handOff;

        Kind(String label, boolean shared, boolean fair, boolean handOff) {
            this.label = label;
            this.shared = shared;
            this.fair = fair;
            this.handOff = handOff;
        }

        /** {@return the kind as {@code inspect} shows it: {@code lock}, {@code fair-lock}, {@code read-lock} …} */
        public String label() {
            return label;
        }

        /** {@return whether its holds are shared (the read lock)} */
        public boolean shared() {
            return shared;
        }

        /** {@return whether it serves waiters FIFO across clients (the fair lock)} */
        public boolean fair() {
            return fair;
        }
    }

    /** This ops' kind. */
    protected final Kind kind;

    /** @param kind this ops' kind */
    protected ArbitratedLockOps(Kind kind) {
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /**
     * Withdraws {@code owner}'s entry from the queue of {@code name}.
     *
     * @param name the lock's name
     * @param owner the owner whose entry goes
     * @return a future that completes once withdrawn
     */
    protected abstract CompletableFuture<Void> withdraw(String name, String owner);

    /**
     * Hands the exclusive hold {@code from} to {@code request}'s owner in one step ({@link NameArbiter#handOver}).
     *
     * @param from the current hold
     * @param request the receiving owner's request
     * @return a future of the new grant, or of {@code null} if {@code from} no longer held the lock
     */
    protected abstract CompletableFuture<Grant> handOver(Grant from, AcquireRequest request);

    /** {@return this ops' kind} */
    public final Kind kind() {
        return kind;
    }

    @Override
    public final boolean singleAttempts() {
        return true;
    }

    @Override
    public final CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        return withdraw(request.name(), entry != null ? entry : request.ownerId());
    }

    @Override
    public final boolean supportsHandOff() {
        return kind.handOff;
    }

    @Override
    public final CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        if (!kind.handOff) {
            throw new UnsupportedOperationException("handOff");
        }
        return handOver(from, request);
    }

    @Override
    public final boolean fair() {
        return kind.fair;
    }

    @Override
    public final boolean shared() {
        return kind.shared;
    }
}
