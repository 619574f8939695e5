package io.latchkey;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Who holds a lock, as the backend recorded it when the hold began ({@link DistributedLock#holder()}). A snapshot:
 * the holder may have released the lock, or lost it, by the time it is returned, so use it for diagnostics and
 * messages only, never to decide who may act (use the holder's fencing token for that).
 *
 * <p>Fields a backend cannot tell are empty rather than guessed: a ZooKeeper lock has no lease (the holder's session
 * keeps it), Redis does not know who waits, and a hold taken by a client that does not record its name (Redisson, an
 * older Latchkey) has the client name {@link #UNKNOWN_CLIENT}.
 *
 * @param owner the hold's owner id as the backend stores it (for Latchkey clients
 *        {@code <clientId>:<thread or lease id>}); never a secret
 * @param clientName the holding client's {@linkplain ClientOptions#clientName() name} ({@code host:pid} unless set),
 *        or {@link #UNKNOWN_CLIENT}
 * @param heldSince when the hold began, by the server's clock where the backend has one (Redis, SQL, etcd,
 *        ZooKeeper), otherwise by the holder's clock; empty if not recorded
 * @param leaseLeft how long until the hold expires unless renewed, if it has a lease
 * @param fencingToken the hold's fencing token, if the backend keeps one for it
 * @param waiters how many owners wait for the lock, if the backend knows
 */
public record LockHolder(String owner, String clientName, Optional<Instant> heldSince, Optional<Duration> leaseLeft,
        OptionalLong fencingToken, OptionalInt waiters) {

    /** The {@link #clientName()} of a hold whose client did not record its name. */
    public static final String UNKNOWN_CLIENT = "unknown";

    /**
     * Creates the snapshot of one hold.
     *
     * @param owner the hold's owner id; not null
     * @param clientName the holding client's name, or {@link #UNKNOWN_CLIENT}; not null
     * @param heldSince when the hold began, or empty
     * @param leaseLeft how long until the hold expires unless renewed, or empty
     * @param fencingToken the hold's fencing token, or empty
     * @param waiters how many owners wait, or empty
     * @throws NullPointerException if a reference is {@code null}
     * @throws IllegalArgumentException if {@code leaseLeft} or {@code waiters} is negative
     */
    public LockHolder {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(clientName, "clientName");
        Objects.requireNonNull(heldSince, "heldSince");
        Objects.requireNonNull(leaseLeft, "leaseLeft");
        Objects.requireNonNull(fencingToken, "fencingToken");
        Objects.requireNonNull(waiters, "waiters");
        if (leaseLeft.isPresent() && leaseLeft.get().isNegative()) {
            throw new IllegalArgumentException(
                    String.format("leaseLeft must not be negative but was %s", leaseLeft.get()));
        }
        if (waiters.isPresent() && waiters.getAsInt() < 0) {
            throw new IllegalArgumentException(
                    String.format("waiters must not be negative but was %d", waiters.getAsInt()));
        }
    }

    /**
     * {@return the holder in a few words, for messages} Such as {@code "billing-7:4242 since 12:00:01Z, token 17,
     * lease left 21 s"}: the client name (the owner id if the name is unknown), then what the backend knows.
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(UNKNOWN_CLIENT.equals(clientName) ? "owner " + owner : clientName);
        heldSince.ifPresent(t -> b.append(" since ").append(t.truncatedTo(ChronoUnit.SECONDS)));
        fencingToken.ifPresent(t -> b.append(", token ").append(t));
        leaseLeft.ifPresent(l -> b.append(", lease left ").append(l.toMillis() >= 10_000
                ? (l.toMillis() / 1000) + " s" : l.toMillis() + " ms"));
        waiters.ifPresent(w -> b.append(", ").append(w).append(w == 1 ? " waiter" : " waiters"));
        return b.toString();
    }
}
