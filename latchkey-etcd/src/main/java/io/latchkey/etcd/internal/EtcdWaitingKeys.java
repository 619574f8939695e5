package io.latchkey.etcd.internal;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The waiting keys of one lock ops, each an owner's place in the lock's queue (the engine's queued entry). A key
 * whose put is still out when its owner leaves is deleted when the put lands (jetcd retries a put across a reconnect),
 * so no key stays on the client's lease to block the lock; deletes are retried until etcd answers
 * ({@link StrandedKeys}).
 *
 * <p>Thread-safe; no I/O under a lock (each key's state changes by compare-and-set).
 */
final class EtcdWaitingKeys {

    enum State {
        PUTTING, // put sent, no answer yet
        LANDED, // on the server, waiting
        ABANDONED, // left while its put was out: deleted when it lands
        DONE // granted, or deleted, or never landed: no longer this table's
    }

    /** One waiting key. */
    static final class Key {
        final String key;
        final String prefix;
        final String ownerId;
        final EtcdLockOps.Kind kind;
        final long leaseId; // the shared lease the key was put on
        final AtomicReference<State> state = new AtomicReference<>(State.PUTTING);
        volatile long revision;
        /** The key this one waits for, or {@code null} while a put or check is out: then every deletion wakes. */
        volatile String awaited;

        Key(String key, String prefix, String ownerId, EtcdLockOps.Kind kind, long leaseId) {
            this.key = key;
            this.prefix = prefix;
            this.ownerId = ownerId;
            this.kind = kind;
            this.leaseId = leaseId;
        }
    }

    private final EtcdLockOps ops;
    private final Map<String, Key> byKey = new ConcurrentHashMap<>();

    EtcdWaitingKeys(EtcdLockOps ops) {
        this.ops = ops;
    }

    boolean isEmpty() {
        return byKey.isEmpty();
    }

    /** {@code null} if it is granted or gone. */
    Key get(String key) {
        return byKey.get(key);
    }

    /** Before its put is sent. */
    Key putting(String key, String prefix, String ownerId, EtcdLockOps.Kind kind, long leaseId) {
        Key k = new Key(key, prefix, ownerId, kind, leaseId);
        byKey.put(key, k);
        return k;
    }

    /** The put of {@code k} landed at {@code revision}; if its owner left meanwhile, it is deleted now. */
    void landed(Key k, long revision) {
        k.revision = revision;
        if (!k.state.compareAndSet(State.PUTTING, State.LANDED)
                && k.state.compareAndSet(State.ABANDONED, State.DONE)) {
            ops.deleteOrStrand(k.key, revision);
        }
    }

    /**
     * The put of {@code k} failed, maybe after etcd applied it: the key, unique to this attempt, is deleted until etcd
     * answers, so that it cannot stay on the client's lease and block the lock for the client's lifetime.
     */
    void putFailed(Key k) {
        byKey.remove(k.key, k);
        k.state.compareAndSet(State.PUTTING, State.DONE);
        k.state.compareAndSet(State.ABANDONED, State.DONE);
        ops.session.stranded().delete(k.key, -1, 0);
    }

    /** {@return whether {@code k} was still waiting} It is the owner's hold from now on, no longer this table's. */
    boolean granted(Key k) {
        byKey.remove(k.key, k);
        return k.state.compareAndSet(State.LANDED, State.DONE);
    }

    /** {@code k} is gone from the server already (its lease expired, it was deleted). */
    void gone(Key k) {
        byKey.remove(k.key, k);
        k.state.set(State.DONE);
    }

    /** Gives up {@code k}: deletes it now if it landed, else when it lands; never fails. */
    CompletableFuture<Void> abandon(Key k) {
        byKey.remove(k.key, k);
        while (true) {
            State s = k.state.get();
            if (s == State.PUTTING && k.state.compareAndSet(s, State.ABANDONED)) {
                return CompletableFuture.completedFuture(null);
            }
            if (s == State.LANDED && k.state.compareAndSet(s, State.DONE)) {
                return ops.deleteOrStrand(k.key, k.revision).thenApply(x -> null);
            }
            if (s == State.ABANDONED || s == State.DONE) {
                return CompletableFuture.completedFuture(null);
            }
        }
    }

    CompletableFuture<Void> abandon(String key) {
        Key k = byKey.get(key);
        return k == null ? CompletableFuture.completedFuture(null) : abandon(k);
    }

    /** Gives up every waiting key of {@code ownerId} under {@code prefix} (an attempt failed before its answer). */
    CompletableFuture<Void> abandonOwner(String prefix, String ownerId) {
        return CompletableFuture.allOf(byKey.values().stream()
                .filter(k -> k.ownerId.equals(ownerId) && k.prefix.equals(prefix)).map(this::abandon)
                .toArray(CompletableFuture<?>[]::new));
    }

    /**
     * {@return whether the deletion of {@code deleted} under {@code prefix} may let a waiter of this table in}: it is a
     * waiting key's awaited key or the waiting key itself, or some waiting key's awaited key is not known, or no key
     * of the prefix waits here (a waiter between keys looks again).
     */
    boolean wakes(String prefix, String deleted) {
        boolean any = false;
        for (Key k : byKey.values()) {
            if (k.prefix.equals(prefix)) {
                any = true;
                String awaited = k.awaited;
                if (awaited == null || awaited.equals(deleted) || k.key.equals(deleted)) {
                    return true;
                }
            }
        }
        return !any;
    }
}
