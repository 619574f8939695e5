package io.latchkey.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What {@link LockInspector#list} knows about one held lock. Fields a backend cannot tell are empty rather than
 * guessed: ZooKeeper has no lease (its session holds the lock), Redis does not know who waits.
 *
 * @param name the lock's name as clients gave it
 * @param owner the holder as the backend records it (for Latchkey clients {@code <clientId>:<thread or lease id>});
 *        never a secret
 * @param holdCount how many times the owner holds it (reentrancy), at least 1
 * @param fencingToken the holder's fencing token, if the backend keeps one
 * @param remainingLease how long until the lock expires unless renewed, if it has a lease
 * @param waiters how many owners wait for it, if the backend knows
 * @param kind what is held: {@link #LOCK} (plain lock), {@code "fair-lock"}, {@code "read-lock"} (one row per read
 *        hold), {@code "write-lock"}, {@code "permit"} (one row per leased permit of a permit-expirable semaphore;
 *        the owner is the permit id), or a synchronizer without owners ({@code "semaphore"}, {@code "latch"}:
 *        owner {@link #NO_OWNER}, hold count 1, the state in {@code detail})
 * @param detail what else the backend can tell in a few words (permits available, a latch's count), or empty
 * @param clientName the holding client's {@linkplain io.latchkey.ClientOptions#clientName() name}, or
 *        {@link io.latchkey.LockHolder#UNKNOWN_CLIENT} if the hold does not record it (a synchronizer without owners,
 *        a hold of Redisson or of an older Latchkey)
 * @param heldSince when the hold began (server time where the backend has it), or empty if not recorded
 */
public record LockInfo(String name, String owner, int holdCount, OptionalLong fencingToken,
        Optional<Duration> remainingLease, OptionalInt waiters, String kind, String detail, String clientName,
        Optional<Instant> heldSince) {

    /** The {@link #kind()} of a plain lock, and of every row of a backend that does not tell kinds apart. */
    public static final String LOCK = "lock";

    /** The {@link #owner()} of a synchronizer that nobody owns (a semaphore's permits, a latch's count). */
    public static final String NO_OWNER = "-";

    /**
     * Describes a plain lock ({@link #LOCK}) with no detail.
     *
     * @param name the lock's name as clients gave it
     * @param owner the holder as the backend records it
     * @param holdCount how many times the owner holds it, at least 1
     * @param fencingToken the holder's fencing token, or empty if the backend keeps none
     * @param remainingLease how long until the lock expires unless renewed, or empty if it has no lease
     * @param waiters how many owners wait for it, or empty if the backend does not know
     * @throws NullPointerException if a reference is {@code null}
     * @throws IllegalArgumentException if {@code holdCount} is not positive or a duration or count is negative
     */
    public LockInfo(String name, String owner, int holdCount, OptionalLong fencingToken,
                    Optional<Duration> remainingLease, OptionalInt waiters) {
        this(name, owner, holdCount, fencingToken, remainingLease, waiters, LOCK, "");
    }

    /**
     * Describes one held lock, permit or synchronizer whose client name and start are not known.
     *
     * @param name the lock's name as clients gave it
     * @param owner the holder as the backend records it, or {@link #NO_OWNER}
     * @param holdCount how many times the owner holds it, at least 1
     * @param fencingToken the holder's fencing token, or empty if the backend keeps none
     * @param remainingLease how long until the lock expires unless renewed, or empty if it has no lease
     * @param waiters how many owners wait for it, or empty if the backend does not know
     * @param kind what is held (see the class comment); not empty
     * @param detail what else the backend can tell in a few words, or empty
     * @throws NullPointerException if a reference is {@code null}
     * @throws IllegalArgumentException if {@code holdCount} is not positive or a duration or count is negative
     */
    public LockInfo(String name, String owner, int holdCount, OptionalLong fencingToken,
                    Optional<Duration> remainingLease, OptionalInt waiters, String kind, String detail) {
        this(name, owner, holdCount, fencingToken, remainingLease, waiters, kind, detail,
                io.latchkey.LockHolder.UNKNOWN_CLIENT, Optional.empty());
    }

    /**
     * {@return this row with the holder's client name and start, as the backend recorded them}
     *
     * @param clientName the holding client's name, or {@link io.latchkey.LockHolder#UNKNOWN_CLIENT}
     * @param heldSince when the hold began, or empty
     */
    public LockInfo withHolder(String clientName, Optional<Instant> heldSince) {
        return new LockInfo(name, owner, holdCount, fencingToken, remainingLease, waiters, kind, detail, clientName,
                heldSince);
    }

    /**
     * Describes one held lock, permit or synchronizer.
     *
     * @param name the lock's name as clients gave it
     * @param owner the holder as the backend records it, or {@link #NO_OWNER}
     * @param holdCount how many times the owner holds it, at least 1
     * @param fencingToken the holder's fencing token, or empty if the backend keeps none
     * @param remainingLease how long until the lock expires unless renewed, or empty if it has no lease
     * @param waiters how many owners wait for it, or empty if the backend does not know
     * @param kind what is held (see the class comment); not empty
     * @param detail what else the backend can tell in a few words, or empty
     * @param clientName the holding client's name, or {@link io.latchkey.LockHolder#UNKNOWN_CLIENT}
     * @param heldSince when the hold began, or empty if not recorded
     * @throws NullPointerException if a reference is {@code null}
     * @throws IllegalArgumentException if {@code holdCount} is not positive or a duration or count is negative
     */
    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(fencingToken, "fencingToken");
        Objects.requireNonNull(remainingLease, "remainingLease");
        Objects.requireNonNull(waiters, "waiters");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(clientName, "clientName");
        Objects.requireNonNull(heldSince, "heldSince");
        if (kind.isEmpty()) {
            throw new IllegalArgumentException("kind must not be empty");
        }
        if (holdCount < 1) {
            throw new IllegalArgumentException(String.format("holdCount must be positive but was %d", holdCount));
        }
        if (remainingLease.isPresent() && remainingLease.get().isNegative()) {
            throw new IllegalArgumentException(
                    String.format("remainingLease must not be negative but was %s", remainingLease.get()));
        }
        if (waiters.isPresent() && waiters.getAsInt() < 0) {
            throw new IllegalArgumentException(
                    String.format("waiters must not be negative but was %d", waiters.getAsInt()));
        }
    }
}
