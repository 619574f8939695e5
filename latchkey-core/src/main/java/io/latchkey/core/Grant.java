package io.latchkey.core;

import java.util.Objects;

/**
 * A lock that a backend granted to one owner: what the engine needs to renew, hand off and release it.
 * Immutable.
 */
public final class Grant {

    private final String name;
    private final String ownerId;
    private final long fencingToken;
    /**
     * The lease time and the watchdog flag in one field: {@code leaseMillis} for a fixed lease, {@code ~leaseMillis}
     * (negative) for a renewed one. A boolean field of its own made every grant, kept for as long as its lock is
     * held, 8 bytes larger.
     */
    private final long lease;
    private final long requestedAtNanos;
    private final Object backendState;

    /**
     * Creates the grant of {@code request}: name, owner, lease and watchdog flag are taken from it.
     *
     * @param request the request that was granted
     * @param fencingToken the token of this free-to-held transition
     * @param requestedAtNanos when the successful attempt was <em>sent</em> ({@link TimeSource#nanoTime()}): the
     *        server's lease started no earlier, so {@code requestedAtNanos + leaseMillis} is a safe local bound
     *        for the lease's end
     * @param backendState whatever the backend needs later (a znode path, a row id), or {@code null}
     */
    public Grant(AcquireRequest request, long fencingToken, long requestedAtNanos, Object backendState) {
        this(request.name(), request.ownerId(), fencingToken, request.leaseMillis(), request.watchdog(),
                requestedAtNanos, backendState);
    }

    /**
     * Creates a grant from its parts, for a hold the backend granted without an {@link AcquireRequest}: a leased
     * permit of a permit-expirable semaphore (whose owner is the permit id), or a permit whose lease changed.
     *
     * @param name the validated lock or semaphore name
     * @param ownerId who owns the hold: {@code clientId:threadId}, {@code clientId:leaseId} or a permit id
     * @param fencingToken the token of the free-to-held transition
     * @param leaseMillis the time to live set on the server, in milliseconds; not negative
     * @param watchdog whether the engine renews the grant
     * @param requestedAtNanos when the successful attempt was sent ({@link TimeSource#nanoTime()}); no later than
     *        the start of the server's lease
     * @param backendState whatever the backend needs later (a znode path, a row id), or {@code null}
     * @throws NullPointerException if {@code name} or {@code ownerId} is null
     * @throws IllegalArgumentException if {@code leaseMillis} is negative
     */
    public Grant(String name, String ownerId, long fencingToken, long leaseMillis, boolean watchdog,
                 long requestedAtNanos, Object backendState) {
        this.name = Objects.requireNonNull(name, "name");
        this.ownerId = Objects.requireNonNull(ownerId, "ownerId");
        if (leaseMillis < 0) {
            throw new IllegalArgumentException("the lease time of a grant must not be negative: " + leaseMillis
                    + " ms (lock '" + name + "', owner " + ownerId + ")");
        }
        this.fencingToken = fencingToken;
        this.lease = watchdog ? ~leaseMillis : leaseMillis;
        this.requestedAtNanos = requestedAtNanos;
        this.backendState = backendState;
    }

    /** {@return the validated lock name, as the application gave it} */
    public String name() {
        return name;
    }

    /** {@return who owns the hold: {@code clientId:threadId}, {@code clientId:leaseId} or a permit id} */
    public String ownerId() {
        return ownerId;
    }

    /** {@return the fencing token of the free-to-held transition this grant made} */
    public long fencingToken() {
        return fencingToken;
    }

    /** {@return the time to live set on the server, in milliseconds: the fixed lease or the watchdog timeout} */
    public long leaseMillis() {
        return lease < 0 ? ~lease : lease;
    }

    /** {@return whether the engine renews this grant} */
    public boolean watchdog() {
        return lease < 0;
    }

    /**
     * {@return when the successful attempt was sent, on {@link TimeSource#nanoTime()}'s clock} The server's lease
     * started no earlier, so {@code requestedAtNanos() + leaseMillis()} is a safe local bound for the lease's end.
     */
    public long requestedAtNanos() {
        return requestedAtNanos;
    }

    /**
     * {@return the backend's own data for this grant (a znode path, a row id), or {@code null}} A backend that knows
     * the type it stored reads it with {@link #backendState(Class)}; this form is for a test of it
     * ({@code instanceof}) or for copying it into a new grant.
     */
    public Object backendState() {
        return backendState;
    }

    /**
     * {@return the backend's own data for this grant as the type the backend stored, or {@code null}}
     *
     * @param type the class of the state the backend passed to the constructor
     * @param <S> the state's type
     * @throws ClassCastException if the state is not a {@code type}: a grant of another backend's ops
     */
    public <S> S backendState(Class<S> type) {
        return type.cast(backendState);
    }

    @Override
    public String toString() {
        return "Grant{name='" + name + "', owner=" + ownerId + ", token=" + fencingToken + ", leaseMillis="
                + leaseMillis() + ", watchdog=" + watchdog() + "}";
    }
}
