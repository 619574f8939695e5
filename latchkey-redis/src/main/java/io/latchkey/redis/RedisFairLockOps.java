package io.latchkey.redis;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.redis.LockScripts.Script;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The remote half of the Redis fair lock (see {@link FairLockScripts}). Keys of a name share the hash tag of
 * {@link SyncKeys#base}: {@code …:fair:owner} (the hold), {@code …:fair:queue} (waiters by server-side arrival
 * sequence), {@code …:fair:timeouts} (waiters by server-time heartbeat expiry), {@code …:fair:seq} (the arrival
 * sequence; deleted with the queue when it empties); the token key of {@link FencingTokens}.
 *
 * <p>It answers single attempts: granted, or {@linkplain Attempt#queued queued} with the owner as its entry (each
 * waiting thread or lease of a client is its own queue entry from its first attempt, so this client's waiters keep
 * their places among other clients' even while this client holds the lock; no local hand-off). The re-check hint is
 * the holder's remaining lease or a third of the heartbeat, whichever is sooner: asking again keeps the place, and a
 * waiter that stops asking (its client crashed) is dropped by the next script once its heartbeat expires, so it
 * delays the queue by at most the heartbeat. A waiter that gives up is {@linkplain #withdraw withdrawn} at once.
 *
 * <p>Wake-ups: a release, withdrawal or forced unlock names the new head of the queue on the name's channel
 * {@code latchkey_fair__channel:<base>}; a client looks again only when the head is one of its own waiters. If the
 * head waits in the releasing client itself, the script publishes nothing and the release's reply wakes it here (one
 * hop and one message less per hand-over within a client; if that reply is lost, the re-check takes over).
 */
final class RedisFairLockOps extends RedisSyncLockOps<RedisFairLockOps.Keys> {

    /** The prefix of every owner id of this client ({@code clientId:}): its waiters are woken locally. */
    private final String localOwners;
    private final FairHeads heads;

    RedisFairLockOps(String namespace, String clientId, ScriptExecutor executor, PubSubChannels channels,
                     long heartbeatMillis, Withdrawals withdrawals, String clientName) {
        super(executor, channels, heartbeatMillis,
                new KeyCache<>(name -> new Keys(namespace, name, executor.cluster())), withdrawals, clientName);
        this.localOwners = clientId + ":";
        this.heads = new FairHeads(TimeUnit.MILLISECONDS.toNanos(recheckMillis()) / 2);
    }

    FairHeads heads() {
        return heads;
    }

    Withdrawals withdrawals() {
        return withdrawals;
    }

    /** The keys of one name. */
    static final class Keys {
        final String owner;
        final String queue;
        final String timeouts;
        final String channel;
        final String[] acquire;
        /** {owner, queue, timeouts, seq}: the KEYS of release, withdrawal and force-unlock. */
        final String[] lockQueueTimeouts;

        Keys(String namespace, String name, boolean cluster) {
            String base = SyncKeys.base(namespace, name, "fair");
            owner = base + ":owner";
            queue = base + ":queue";
            timeouts = base + ":timeouts";
            channel = "latchkey_fair__channel:" + base;
            String seq = base + ":seq";
            acquire = new String[] {owner, queue, timeouts, seq, FencingTokens.key(namespace, base, cluster)};
            lockQueueTimeouts = new String[] {owner, queue, timeouts, seq};
        }
    }

    /**
     * One attempt: granted, or queued (the owner is the entry). An attempt whose wait is already over (a
     * {@code tryLock} without wait) only looks: it takes no place that would have to be withdrawn again. A queued
     * waiter that is not the head last named, and asked recently, is answered without a round trip ({@link FairHeads}).
     */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        String owner = request.ownerId();
        long sentAt = request.time().nanoTime();
        if (entry != null) {
            long spare = heads.spare(request.name(), owner, sentAt);
            if (spare > 0) {
                return CompletableFuture.completedFuture(Attempt.queued(entry, spare));
            }
        }
        Keys keys = keys(request.name());
        boolean queue = !request.isExpired();
        if (queue) {
            withdrawals.superseded(request.name(), owner);
        }
        heads.asking(owner, sentAt);
        return executor.<Long>run(FairLockScripts.ACQUIRE, ScriptOutputType.INTEGER, keys.acquire, owner,
                Long.toString(request.leaseMillis()), queue ? "1" : "0", Long.toString(heartbeatMillis),
                keys.channel, request.attemptId(), clientName).thenApply(reply -> {
                    if (reply > 0 || !queue) {
                        heads.done(owner);
                    }
                    return reply > 0 ? Attempt.granted(new Grant(request, reply, sentAt, null))
                            : queue ? Attempt.queued(owner, recheckNanos(reply)) : Attempt.busy(recheckNanos(reply));
                });
    }

    /**
     * The name's channel, filtered: only a message naming one of this client's waiters as the head wakes it. The head
     * named is remembered for {@link #tryAcquire} while the subscription lasts.
     */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return channels.subscribe(keys(name).channel, head -> {
            heads.named(name, head);
            return head.startsWith(localOwners);
        }, changed).thenApply(s -> () -> {
            heads.unsubscribed(name);
            s.close();
        });
    }

    /**
     * Removes the owner's queue entry. One that does not reach the server is tried again ({@link Withdrawals}) until
     * it does or the entry's heartbeat has run out: a lost removal would hold the queue behind it back until then.
     */
    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        heads.done(request.ownerId());
        Keys keys = keys(request.name());
        String owner = entry != null ? entry : request.ownerId();
        return withdrawals.withdraw("withdrawal of " + owner + " from the fair lock '" + request.name() + "'",
                request.name(), owner, heartbeatMillis,
                () -> executor.<Long>run(FairLockScripts.WITHDRAW, ScriptOutputType.INTEGER, keys.lockQueueTimeouts,
                        owner, keys.channel));
    }

    /** Deletes the hold the request's attempt made, if it is still that one ({@link FairLockScripts#CLEAN_UP}). */
    @Override
    public CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest request) {
        Keys keys = keys(request.name());
        return executor.<Long>run(FairLockScripts.CLEAN_UP, ScriptOutputType.INTEGER, keys.lockQueueTimeouts,
                request.ownerId(), request.attemptId(), keys.channel).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        Keys keys = keys(grant.name());
        return executor.<List<Object>>run(FairLockScripts.RELEASE, ScriptOutputType.MULTI, keys.lockQueueTimeouts,
                member(grant), keys.channel, localOwners).thenApply(reply -> {
                    boolean released = !reply.isEmpty() && Long.valueOf(1L).equals(reply.get(0));
                    if (released && reply.size() > 1 && String.valueOf(reply.get(1)).startsWith(localOwners)) {
                        // The next in line is a waiter of this client: the script published nothing for it, it is
                        // woken here, as the message would.
                        channels.deliverLocally(keys.channel, String.valueOf(reply.get(1)));
                    } else if (released && reply.size() > 1) {
                        heads.named(grant.name(), String.valueOf(reply.get(1)));
                    }
                    return released;
                });
    }

    @Override
    String renewKey(Keys keys) {
        return keys.owner;
    }

    /** The write hold's renewal: the same check of {@code owner|token} at the start of the first line. */
    @Override
    Script renewScript() {
        return ReadWriteLockScripts.RENEW_WRITE;
    }

    @Override
    public boolean fair() {
        return true;
    }

    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        return holder(executor, keys(name).owner);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return executor.exists(keys(name).owner);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        Keys keys = keys(name);
        return executor.<Long>run(FairLockScripts.FORCE_UNLOCK, ScriptOutputType.INTEGER, keys.lockQueueTimeouts,
                keys.channel).thenApply(r -> r == 1L);
    }

    @Override
    public String toString() {
        return "RedisFairLockOps";
    }
}
