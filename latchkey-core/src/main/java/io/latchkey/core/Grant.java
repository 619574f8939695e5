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
    private final long leaseMillis;
    private final boolean watchdog;
    private final long requestedAtNanos;
    private final Object backendState;

    /**
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

    public Grant(String name, String ownerId, long fencingToken, long leaseMillis, boolean watchdog,
                 long requestedAtNanos, Object backendState) {
        this.name = Objects.requireNonNull(name, "name");
        this.ownerId = Objects.requireNonNull(ownerId, "ownerId");
        this.fencingToken = fencingToken;
        this.leaseMillis = leaseMillis;
        this.watchdog = watchdog;
        this.requestedAtNanos = requestedAtNanos;
        this.backendState = backendState;
    }

    public String name() {
        return name;
    }

    public String ownerId() {
        return ownerId;
    }

    public long fencingToken() {
        return fencingToken;
    }

    public long leaseMillis() {
        return leaseMillis;
    }

    public boolean watchdog() {
        return watchdog;
    }

    public long requestedAtNanos() {
        return requestedAtNanos;
    }

    /** The backend's own data for this grant, or {@code null}. */
    public Object backendState() {
        return backendState;
    }

    @Override
    public String toString() {
        return "Grant{name='" + name + "', owner=" + ownerId + ", token=" + fencingToken + ", leaseMillis="
                + leaseMillis + ", watchdog=" + watchdog + "}";
    }
}
