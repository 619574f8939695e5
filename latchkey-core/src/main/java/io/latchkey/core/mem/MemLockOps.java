package io.latchkey.core.mem;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.ArbitratedLockOps;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** The remote half of one mem lock kind: maps names into the client's namespace and calls the {@link MemServer}. */
final class MemLockOps extends ArbitratedLockOps {

    private final MemServer server;
    /**
     * The namespace and a NUL: neither namespaces nor names may contain control characters, so (namespace, name)
     * pairs map to distinct keys and no name can reach into another namespace ({@code "a/" + "x"} is not
     * {@code "" + "a/x"}).
     */
    private final String prefix;
    /** The client's name, recorded with each hold (the one string of the client, never copied). */
    private final String clientName;

    MemLockOps(MemServer server, String namespace, Kind kind, String clientName) {
        super(kind);
        this.server = server;
        this.prefix = namespace + '\u0000';
        this.clientName = clientName;
    }

    private String key(String name) {
        return prefix + name;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        String key = key(request.name());
        return server.call("acquire", key, (now, changed) -> server.locks.tryAcquire(key, kind.shared(), request,
                clientName, now, changed));
    }

    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return server.pushes.subscribe(key(name), changed);
    }

    @Override
    protected CompletableFuture<Void> withdraw(String name, String owner) {
        String key = key(name);
        return server.call("withdraw", key, (now, changed) -> server.locks.withdraw(key, owner, changed));
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        String key = key(grant.name());
        return server.call("release", key, (now, changed) -> server.locks.release(key, grant, now, changed));
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return server.call("renewal of " + grants.size() + " lock(s)", null, (now, changed) -> {
            Set<Grant> lost = new HashSet<>();
            for (Grant g : grants) {
                if (!server.locks.renew(key(g.name()), g, now, changed)) {
                    lost.add(g);
                }
            }
            return lost;
        });
    }

    @Override
    protected CompletableFuture<Grant> handOver(Grant from, AcquireRequest request) {
        String key = key(from.name());
        return server.call("handOff", key, (now, changed) -> server.locks.handOff(key, from, request, clientName,
                now, changed));
    }

    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        return CompletableFuture.completedFuture(server.read(() -> server.locks.holder(key(name))));
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        String key = key(name);
        return server.call("isLocked", key, (now, changed) -> server.locks.isLocked(key, now, changed));
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        String key = key(name);
        return server.call("forceUnlock", key, (now, changed) -> server.locks.forceUnlock(key, now, changed));
    }

    @Override
    public String toString() {
        return "MemLockOps{server=" + server.name() + ", kind=" + kind + "}";
    }
}
