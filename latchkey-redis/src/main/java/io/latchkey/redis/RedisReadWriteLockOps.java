package io.latchkey.redis;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.redis.LockScripts.Script;
import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * One half (read or write) of the Redis read-write lock; the client has one instance of each, both on the same
 * keys (see {@link ReadWriteLockScripts}). All keys of a name share the hash tag of {@link SyncKeys#base}:
 *
 * <ul>
 *   <li>{@code …:rw:write} — the write hold, string {@code owner|token|attempt id}, then a line with the client's
 *   name and one with the hold's start (see {@link ReadWriteLockScripts}), PEXPIRE lease;</li>
 *   <li>{@code …:rw:readers} — read holds, sorted set of {@code owner|token} scored by their expiry in server
 *   time, so each read hold has its own lease and renewal, and a crashed reader's hold ends on its own;</li>
 *   <li>{@code …:rw:attempts} — the attempt id of each read hold, hash {@code owner|token -> attempt id}, so that a
 *   read attempt whose answer never arrived is cleaned up by its id; an entry goes with its hold's release or
 *   clean-up, a crashed reader's with the key (PEXPIRE the readers' latest expiry when a hold is taken);</li>
 *   <li>{@code …:rw:writers} — writers waiting, sorted set of owners scored by when the server forgets them (a
 *   waiting writer asks again well before), which holds back new readers: writers do not starve. Only with
 *   writer preference (the default); without it writers register nothing and readers enter while no writer
 *   holds;</li>
 *   <li>the token key of {@link FencingTokens}, shared by the namespace (on a cluster: by the slot); a free
 *   read-write lock leaves no key;</li>
 *   <li>channel {@code latchkey_rw__channel:<base>} — a write release, the last read release and a writer's
 *   withdrawal publish on it.</li>
 * </ul>
 * A read requested by the owner of the write hold is granted at once (downgrade); an upgrade never reaches the
 * server (the engine refuses it). A waiting writer re-checks at the earliest read hold's expiry (a crashed
 * reader) or the writer's lease, a waiting reader at the writer's lease or the earliest intent's expiry.
 */
final class RedisReadWriteLockOps extends RedisSyncLockOps<RedisReadWriteLockOps.Keys> {

    private final boolean read;
    private final boolean writerPreference;

    /**
     * @param writerPreference whether waiting writers hold back new readers (writers register an intent, readers
     *        respect it); the two halves of one lock must agree
     * @param heartbeatMillis how long the server remembers a waiting writer that stopped asking; the writer asks
     *        again at least every third of it
     */
    RedisReadWriteLockOps(boolean read, boolean writerPreference, ScriptExecutor executor, PubSubChannels channels,
                          long heartbeatMillis, KeyCache<Keys> sharedKeyCache, Withdrawals withdrawals,
                          String clientName) {
        super(executor, channels, heartbeatMillis, sharedKeyCache, withdrawals, clientName);
        this.read = read;
        this.writerPreference = writerPreference;
    }

    /** The keys of one name. */
    static final class Keys {
        final String write;
        final String readers;
        final String writers;
        final String attempts;
        final String channel;
        /** {write, readers, writers, token key, attempts}: the KEYS of both acquire scripts. */
        final String[] acquire;

        Keys(String namespace, String name, boolean cluster) {
            String base = SyncKeys.base(namespace, name, "rw");
            write = base + ":write";
            readers = base + ":readers";
            writers = base + ":writers";
            attempts = base + ":attempts";
            channel = "latchkey_rw__channel:" + base;
            acquire = new String[] {write, readers, writers, FencingTokens.key(namespace, base, cluster), attempts};
        }
    }

    @Override
    public boolean shared() {
        return read;
    }

    /**
     * One attempt: granted, or busy until the next re-check (the hint of the script, at most a third of the
     * heartbeat, so that a waiting writer refreshes its intent in time). A writer of a writer-preference lock that
     * registered its intent answers {@linkplain Attempt#queued queued} with its owner as the entry, so that the engine
     * {@linkplain #withdraw withdraws} the intent when the writer gives up; one whose wait is over registers none.
     */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        Keys keys = keys(request.name());
        String lease = Long.toString(request.leaseMillis());
        boolean intent = !read && writerPreference && !request.isExpired();
        if (intent) {
            withdrawals.superseded(request.name(), request.ownerId());
        }
        long sentAt = request.time().nanoTime();
        CompletableFuture<Long> reply = read
                ? executor.run(ReadWriteLockScripts.ACQUIRE_READ, ScriptOutputType.INTEGER, keys.acquire,
                        request.ownerId(), lease, writerPreference ? "1" : "0", request.attemptId())
                : executor.run(ReadWriteLockScripts.ACQUIRE_WRITE, ScriptOutputType.INTEGER, keys.acquire,
                        request.ownerId(), lease, intent ? "1" : "0", Long.toString(heartbeatMillis),
                        request.attemptId(), clientName);
        return reply.thenApply(r -> r > 0 ? Attempt.granted(new Grant(request, r, sentAt, null))
                : intent ? Attempt.queued(request.ownerId(), recheckNanos(r)) : Attempt.busy(recheckNanos(r)));
    }

    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return channels.subscribe(keys(name).channel, changed);
    }

    /**
     * Withdraws a waiting writer's intent. One that does not reach the server is tried again ({@link Withdrawals})
     * until it does or the intent's heartbeat has run out: a lost withdrawal would hold readers back until then.
     */
    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        if (read || !writerPreference) {
            return CompletableFuture.completedFuture(null);
        }
        Keys keys = keys(request.name());
        String owner = entry != null ? entry : request.ownerId();
        return withdrawals.withdraw("withdrawal of the writer intent " + owner + " of '" + request.name() + "'",
                request.name(), owner, heartbeatMillis,
                () -> executor.<Long>run(ReadWriteLockScripts.WITHDRAW_WRITER, ScriptOutputType.INTEGER,
                        new String[] {keys.writers, keys.write, keys.channel}, owner));
    }

    /**
     * Deletes the hold its request's attempt made, if it is still there: the write hold if it is still that one
     * ({@link ReadWriteLockScripts#CLEAN_UP_WRITE}), the read hold noted with that attempt id
     * ({@link ReadWriteLockScripts#CLEAN_UP_READ}).
     */
    @Override
    public CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest request) {
        Keys keys = keys(request.name());
        if (read) {
            return executor.<Long>run(ReadWriteLockScripts.CLEAN_UP_READ, ScriptOutputType.INTEGER,
                    new String[] {keys.readers, keys.channel, keys.attempts}, request.ownerId(), request.attemptId())
                    .thenApply(r -> r == 1L);
        }
        return executor.<Long>run(ReadWriteLockScripts.CLEAN_UP_WRITE, ScriptOutputType.INTEGER,
                new String[] {keys.write, keys.channel}, request.ownerId(), request.attemptId())
                .thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        Keys keys = keys(grant.name());
        Script script = read ? ReadWriteLockScripts.RELEASE_READ : ReadWriteLockScripts.RELEASE_WRITE;
        String[] k = read ? new String[] {keys.readers, keys.channel, keys.attempts}
                : new String[] {keys.write, keys.channel};
        return executor.<Long>run(script, ScriptOutputType.INTEGER, k, member(grant)).thenApply(r -> r == 1L);
    }

    @Override
    String renewKey(Keys keys) {
        return read ? keys.readers : keys.write;
    }

    @Override
    Script renewScript() {
        return read ? ReadWriteLockScripts.RENEW_READ : ReadWriteLockScripts.RENEW_WRITE;
    }

    /** The write half: who holds the write lock; the read half cannot tell (read holds name no client). */
    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        return read ? CompletableFuture.completedFuture(null) : holder(executor, keys(name).write);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        Keys keys = keys(name);
        return executor.<Long>run(ReadWriteLockScripts.IS_LOCKED, ScriptOutputType.INTEGER,
                new String[] {keys.write, keys.readers}).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        Keys keys = keys(name);
        return executor.<Long>run(ReadWriteLockScripts.FORCE_UNLOCK, ScriptOutputType.INTEGER,
                new String[] {keys.write, keys.readers, keys.writers, keys.channel, keys.attempts})
                .thenApply(r -> r == 1L);
    }

    @Override
    public String toString() {
        return "RedisReadWriteLockOps{" + (read ? "read" : "write")
                + (writerPreference ? ", writer preference" : ", reader preference") + "}";
    }
}
