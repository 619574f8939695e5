package io.latchkey.redis;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The remote half of the Redis fair lock (see {@link FairLockScripts}). Keys of a name share the hash tag of
 * {@link SyncKeys#base}: {@code …:fair:owner} (the hold), {@code …:fair:queue} (waiters by server-side arrival
 * sequence), {@code …:fair:timeouts} (waiters by server-time heartbeat expiry), {@code …:fair:seq} (the arrival
 * sequence; deleted with the queue when it empties); the token key of {@link FencingTokens}.
 *
 * <p>Each waiting owner listens on its own channel {@code latchkey_fair__channel:<base>:<owner>}: a release
 * wakes the head of the queue alone, not every waiter. A waiter asks again at the holder's remaining lease or
 * every third of the heartbeat, whichever is sooner, which also keeps its place; a waiter that stops asking (its
 * client crashed) is dropped by the next script once its heartbeat expires, so it delays the queue by at most the
 * heartbeat. A waiter that gives up (timeout, interrupt) leaves the queue at once.
 *
 * <p>{@linkplain #fair() Fair}: every waiting thread or lease of a client is its own queue entry (by owner id) from
 * the moment it starts waiting, with its own channel, so this client's waiters keep their places among other
 * clients' even while this client holds the lock; no local hand-off. A release learns who is next: if that is a
 * waiter of this client, the script publishes nothing and the waiter is woken at the release's reply (one hop and
 * one message less per hand-over within a client; if that reply is lost, the waiter's re-check, at most a third
 * of the heartbeat later, or the re-check after a reconnect takes over).
 */
final class RedisFairLockOps implements RemoteLockOps {

    private static final int RENEW_BATCH = 512;

    private final String namespace;
    private final ScriptExecutor executor;
    private final UnlockSubscriptions subscriptions;
    private final ScheduledExecutorService scheduler;
    private final long heartbeatMillis;
    private final KeyCache<Keys> keyCache;
    /** The prefix of every owner id of this client ({@code clientId:}): its waiters are woken locally. */
    private final String localOwners;

    RedisFairLockOps(String namespace, String clientId, ScriptExecutor executor, UnlockSubscriptions subscriptions,
                     ScheduledExecutorService scheduler, long heartbeatMillis) {
        this.namespace = namespace;
        this.localOwners = clientId + ":";
        this.keyCache = new KeyCache<>(name -> new Keys(namespace, name, executor.cluster()));
        this.executor = executor;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        this.heartbeatMillis = heartbeatMillis;
    }

    /** The keys of one name. */
    static final class Keys {
        final String owner;
        final String queue;
        final String timeouts;
        final String channelPrefix;
        final String[] acquire;
        /** {owner, queue, timeouts, seq}: the KEYS of release, withdrawal and force-unlock. */
        final String[] lockQueueTimeouts;

        Keys(String namespace, String name) {
            this(namespace, name, false);
        }

        Keys(String namespace, String name, boolean cluster) {
            String base = SyncKeys.base(namespace, name, "fair");
            owner = base + ":owner";
            queue = base + ":queue";
            timeouts = base + ":timeouts";
            channelPrefix = "latchkey_fair__channel:" + base + ":";
            String seq = base + ":seq";
            acquire = new String[] {owner, queue, timeouts, seq, FencingTokens.key(namespace, base, cluster),
                    base + ":fence"};
            lockQueueTimeouts = new String[] {owner, queue, timeouts, seq};
        }
    }

    Keys keys(String name) {
        return keyCache.get(name);
    }

    private Keys keys(Grant grant) {
        return grant.backendState() instanceof Keys k ? k : keys(grant.name());
    }

    private static String member(Grant grant) {
        return grant.ownerId() + "|" + grant.fencingToken();
    }

    long heartbeatMillis() {
        return heartbeatMillis;
    }

    @Override
    public CompletableFuture<Grant> acquire(AcquireRequest request) {
        Keys keys = keys(request.name());
        String owner = request.ownerId();
        String lease = Long.toString(request.leaseMillis());
        String heartbeat = Long.toString(heartbeatMillis);
        RedisLockAcquire.Attempt attempt = willWait -> executor.run(FairLockScripts.ACQUIRE,
                ScriptOutputType.INTEGER, keys.acquire, owner, lease, willWait ? "1" : "0", heartbeat,
                keys.channelPrefix);
        Runnable withdraw = () -> executor.run(FairLockScripts.WITHDRAW, ScriptOutputType.INTEGER,
                keys.lockQueueTimeouts, owner, keys.channelPrefix);
        // The owner's channel lingers for a heartbeat: a thread that takes the lock again soon finds it subscribed.
        return new RedisLockAcquire(subscriptions, scheduler, request, keys.channelPrefix + owner, attempt, withdraw,
                Math.max(1, heartbeatMillis / 3), keys).lingerChannel(heartbeatMillis).start();
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        Keys keys = keys(grant);
        return executor.<List<Object>>run(FairLockScripts.RELEASE, ScriptOutputType.MULTI, keys.lockQueueTimeouts,
                member(grant), keys.channelPrefix, localOwners).thenApply(reply -> {
                    boolean released = !reply.isEmpty() && Long.valueOf(1L).equals(reply.get(0));
                    if (released && reply.size() > 1 && String.valueOf(reply.get(1)).startsWith(localOwners)) {
                        // The next in line is a waiter of this client: the script published nothing for it, it is
                        // woken here (on its own channel's waiters, as a message would).
                        subscriptions.wakeLocally(keys.channelPrefix + reply.get(1));
                    }
                    return released;
                });
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(Set.of());
        }
        List<CompletableFuture<Set<Grant>>> batches = new ArrayList<>();
        for (List<Grant> batch : RenewBatches.split(grants, RENEW_BATCH, executor.cluster(),
                g -> keys(g).owner)) {
            String[] keys = new String[batch.size()];
            String[] args = new String[2 * batch.size()];
            for (int i = 0; i < batch.size(); i++) {
                keys[i] = keys(batch.get(i)).owner;
                args[2 * i] = member(batch.get(i));
                args[2 * i + 1] = Long.toString(batch.get(i).leaseMillis());
            }
            // Same check as the write hold's renewal: the exact owner|token string, then PEXPIRE.
            batches.add(executor.<List<Object>>run(ReadWriteLockScripts.RENEW_WRITE, ScriptOutputType.MULTI, keys,
                    args).thenApply(reply -> {
                        Set<Grant> lost = new HashSet<>();
                        for (int i = 0; i < batch.size(); i++) {
                            if (!(reply.get(i) instanceof Long) || (Long) reply.get(i) != 1L) {
                                lost.add(batch.get(i));
                            }
                        }
                        return lost;
                    }));
        }
        return CompletableFuture.allOf(batches.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            Set<Grant> lost = new HashSet<>();
            batches.forEach(b -> lost.addAll(b.join()));
            return lost;
        });
    }

    @Override
    public boolean fair() {
        return true;
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        String key = keys(name).owner;
        return executor.call(() -> executor.commands().exists(key), "EXISTS").thenApply(n -> n > 0);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        Keys keys = keys(name);
        return executor.<Long>run(FairLockScripts.FORCE_UNLOCK, ScriptOutputType.INTEGER, keys.lockQueueTimeouts,
                keys.channelPrefix).thenApply(r -> r == 1L);
    }

    @Override
    public String toString() {
        return "RedisFairLockOps";
    }
}
