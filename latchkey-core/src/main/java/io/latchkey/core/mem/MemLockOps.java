package io.latchkey.core.mem;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** The remote half of one mem lock kind: maps names into the client's namespace and calls the {@link MemServer}. */
final class MemLockOps implements RemoteLockOps {

    /** Lock kinds. All share one key space per name: a plain and a fair lock of one name exclude each other. */
    enum Kind {
        LOCK(false, true),
        /**
         * Every waiter of a client queues at the server on its own, no local hand-off: FIFO across clients
         * ({@link RemoteLockOps#fair()}).
         */
        FAIR(false, false),
        READ(true, false),
        /** No local hand-off: the write lock's holder may also hold the read lock (downgrade). */
        WRITE(false, false);

        final boolean shared;
        final boolean handOff;

        Kind(boolean shared, boolean handOff) {
            this.shared = shared;
            this.handOff = handOff;
        }
    }

    private final MemServer server;
    /**
     * The namespace and a NUL: neither namespaces nor names may contain control characters, so (namespace, name)
     * pairs map to distinct keys and no name can reach into another namespace ({@code "a/" + "x"} is not
     * {@code "" + "a/x"}).
     */
    private final String prefix;
    private final Kind kind;
    /** The client's name, recorded with each hold (the one string of the client, never copied). */
    private final String clientName;

    MemLockOps(MemServer server, String namespace, Kind kind, String clientName) {
        this.server = server;
        this.prefix = namespace + '\u0000';
        this.kind = kind;
        this.clientName = clientName;
    }

    private String key(String name) {
        return prefix + name;
    }

    @Override
    public boolean singleAttempts() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        return server.locks.tryAcquire(key(request.name()), kind.shared, request, clientName);
    }

    @Override
    public CompletableFuture<io.latchkey.core.RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return server.locks.watchers.subscribe(key(name), changed);
    }

    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        return server.locks.withdraw(key(request.name()), entry != null ? entry : request.ownerId());
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        return server.locks.release(key(grant.name()), grant);
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return server.locks.renew(prefix, grants);
    }

    @Override
    public boolean supportsHandOff() {
        return kind.handOff;
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        if (!kind.handOff) {
            throw new UnsupportedOperationException("handOff");
        }
        return server.locks.handOff(key(from.name()), from, request, clientName);
    }

    @Override
    public boolean shared() {
        return kind.shared;
    }

    @Override
    public boolean fair() {
        return kind == Kind.FAIR;
    }

    @Override
    public CompletableFuture<io.latchkey.LockHolder> holder(String name) {
        return CompletableFuture.completedFuture(MemInspector.holder(server.locks, key(name)));
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return server.locks.isLocked(key(name));
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        return server.locks.forceUnlock(key(name));
    }

    @Override
    public String toString() {
        return "MemLockOps{server=" + server.name() + ", kind=" + kind + "}";
    }
}
