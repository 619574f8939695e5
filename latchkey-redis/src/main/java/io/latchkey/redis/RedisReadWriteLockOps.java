package io.latchkey.redis;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.redis.LockScripts.Script;
import io.lettuce.core.ScriptOutputType;
import io.latchkey.LockHolder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One half (read or write) of the Redis read-write lock; the client has one instance of each, both on the same
 * keys (see {@link ReadWriteLockScripts}). All keys of a name share the hash tag of {@link SyncKeys#base}:
 *
 * <ul>
 *   <li>{@code …:rw:write} — the write hold, string {@code owner|token|attempt id}, then a line with the client's
 *   name and one with the hold's start (see {@link ReadWriteLockScripts}), PEXPIRE lease;</li>
 *   <li>{@code …:rw:readers} — read holds, sorted set of {@code owner|token} scored by their expiry in server
 *   time, so each read hold has its own lease and renewal, and a crashed reader's hold ends on its own;</li>
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
final class RedisReadWriteLockOps implements RemoteLockOps {

    private static final int RENEW_BATCH = 512;

    private final boolean read;
    private final boolean writerPreference;
    private final ScriptExecutor executor;
    private final PubSubChannels channels;
    private final long heartbeatMillis;
    private final KeyCache<Keys> keyCache;
    private final Withdrawals withdrawals;
    /** The client's name, recorded with each write hold. */
    private final String clientName;

    /**
     * @param writerPreference whether waiting writers hold back new readers (writers register an intent, readers
     *        respect it); the two halves of one lock must agree
     * @param heartbeatMillis how long the server remembers a waiting writer that stopped asking; the writer asks
     *        again at least every third of it
     */
    RedisReadWriteLockOps(boolean read, boolean writerPreference, ScriptExecutor executor, PubSubChannels channels,
                          long heartbeatMillis, KeyCache<Keys> sharedKeyCache, Withdrawals withdrawals,
                          String clientName) {
        this.clientName = clientName;
        this.read = read;
        this.writerPreference = writerPreference;
        this.executor = executor;
        this.channels = channels;
        this.heartbeatMillis = heartbeatMillis;
        this.keyCache = sharedKeyCache;
        this.withdrawals = withdrawals;
    }

    /** The keys of one name. */
    static final class Keys {
        final String write;
        final String readers;
        final String writers;
        final String channel;
        /** {write, readers, writers, token key, old counter}: the KEYS of both acquire scripts. */
        final String[] acquire;

        Keys(String namespace, String name) {
            this(namespace, name, false);
        }

        Keys(String namespace, String name, boolean cluster) {
            String base = SyncKeys.base(namespace, name, "rw");
            write = base + ":write";
            readers = base + ":readers";
            writers = base + ":writers";
            channel = "latchkey_rw__channel:" + base;
            acquire = new String[] {write, readers, writers, FencingTokens.key(namespace, base, cluster),
                    base + ":fence"};
        }
    }

    Keys keys(String name) {
        return keyCache.get(name);
    }

    /**
     * The keys of a grant's name: a grant keeps none of its own (they would be kept for as long as the lock is
     * held); a release or hand-off soon after the acquire finds them in the cache.
     */
    private Keys keys(Grant grant) {
        return keys(grant.name());
    }

    /**
     * The keys of a held name for the watchdog's rounds: cached, or built without filling the cache (a round over
     * more held names than the cache keeps would otherwise clear it again and again).
     */
    private Keys renewalKeys(Grant grant) {
        return keyCache.peekOrBuild(grant.name());
    }

    private static String member(Grant grant) {
        return grant.ownerId() + "|" + grant.fencingToken();
    }

    @Override
    public boolean shared() {
        return read;
    }

    @Override
    public boolean singleAttempts() {
        return true;
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
                        request.ownerId(), lease, writerPreference ? "1" : "0")
                : executor.run(ReadWriteLockScripts.ACQUIRE_WRITE, ScriptOutputType.INTEGER, keys.acquire,
                        request.ownerId(), lease, intent ? "1" : "0", Long.toString(heartbeatMillis),
                        request.attemptId(), clientName);
        return reply.thenApply(r -> {
            if (r > 0) {
                return Attempt.granted(new Grant(request, r, sentAt, null));
            }
            long recheck = TimeUnit.MILLISECONDS.toNanos(Math.min(1 - r, Math.max(1, heartbeatMillis / 3)));
            return intent ? Attempt.queued(request.ownerId(), recheck) : Attempt.busy(recheck);
        });
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
     * The write half deletes the hold its request's attempt made, if it is still that one
     * ({@link ReadWriteLockScripts#CLEAN_UP_WRITE}). A read hold (a member {@code owner|token} of the readers' set)
     * keeps no attempt id: an unanswered read attempt's hold ends with its lease.
     */
    @Override
    public CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest request) {
        if (read) {
            return CompletableFuture.completedFuture(false);
        }
        Keys keys = keys(request.name());
        return executor.<Long>run(ReadWriteLockScripts.CLEAN_UP_WRITE, ScriptOutputType.INTEGER,
                new String[] {keys.write, keys.channel}, request.ownerId(), request.attemptId())
                .thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        Keys keys = keys(grant);
        Script script = read ? ReadWriteLockScripts.RELEASE_READ : ReadWriteLockScripts.RELEASE_WRITE;
        String[] k = {read ? keys.readers : keys.write, keys.channel};
        return executor.<Long>run(script, ScriptOutputType.INTEGER, k, member(grant)).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(Set.of());
        }
        List<CompletableFuture<Set<Grant>>> batches = new ArrayList<>();
        for (List<Grant> batch : RenewBatches.split(grants, RENEW_BATCH, executor.cluster(),
                g -> renewalKeys(g).write)) {
            batches.add(renewBatch(batch));
        }
        return CompletableFuture.allOf(batches.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            Set<Grant> lost = new HashSet<>();
            for (CompletableFuture<Set<Grant>> batch : batches) {
                lost.addAll(batch.join());
            }
            return lost;
        });
    }

    private CompletableFuture<Set<Grant>> renewBatch(List<Grant> batch) {
        int n = batch.size();
        String[] keys = new String[n];
        String[] args = new String[2 * n];
        for (int i = 0; i < n; i++) {
            Grant grant = batch.get(i);
            Keys k = renewalKeys(grant);
            keys[i] = read ? k.readers : k.write;
            args[2 * i] = member(grant);
            args[2 * i + 1] = Long.toString(grant.leaseMillis());
        }
        Script script = read ? ReadWriteLockScripts.RENEW_READ : ReadWriteLockScripts.RENEW_WRITE;
        return executor.<List<Object>>run(script, ScriptOutputType.MULTI, keys, args)
                .thenApply(reply -> RenewBatches.lost(reply, batch));
    }

    /** The write half: who holds the write lock; the read half cannot tell (read holds name no client). */
    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        return read ? RemoteLockOps.super.holder(name) : holder(executor, keys(name).write);
    }

    /**
     * Who holds it: the hold's first line {@code owner|token|attempt id} with its client-name and start lines (one
     * read-only script, {@link ReadWriteLockScripts#HOLD}); a hold of an earlier version ({@code owner|token}) names
     * no client. Redis does not count waiters.
     */
    static CompletableFuture<LockHolder> holder(ScriptExecutor executor, String key) {
        return executor.<List<Object>>run(ReadWriteLockScripts.HOLD, ScriptOutputType.MULTI, new String[] {key})
                .thenApply(r -> {
                    if (r == null || r.size() < 2 || !(r.get(0) instanceof String) && !(r.get(0) instanceof byte[])) {
                        return null;
                    }
                    Object v = r.get(0);
                    String value = v instanceof byte[] ? new String((byte[]) v, java.nio.charset.StandardCharsets.UTF_8)
                            : (String) v;
                    String[] lines = value.split("\n", 3);
                    int bar = lines[0].indexOf('|');
                    String owner = bar < 0 ? lines[0] : lines[0].substring(0, bar);
                    int end = bar < 0 ? -1 : lines[0].indexOf('|', bar + 1);
                    String tokenText = bar < 0 ? "" : lines[0].substring(bar + 1, end < 0 ? lines[0].length() : end);
                    OptionalLong token = tokenText.matches("[0-9]{1,18}")
                            ? OptionalLong.of(Long.parseLong(tokenText)) : OptionalLong.empty();
                    String client = lines.length > 1 && !lines[1].isEmpty() ? lines[1] : LockHolder.UNKNOWN_CLIENT;
                    Optional<Instant> since = lines.length > 2 && lines[2].matches("[0-9]{1,18}")
                            ? Optional.of(Instant.ofEpochMilli(Long.parseLong(lines[2]))) : Optional.empty();
                    long pttl = r.get(1) instanceof Long ? (Long) r.get(1) : -1;
                    return new LockHolder(owner, client, since,
                            pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(), token,
                            OptionalInt.empty());
                });
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
                new String[] {keys.write, keys.readers, keys.writers, keys.channel}).thenApply(r -> r == 1L);
    }

    @Override
    public String toString() {
        return "RedisReadWriteLockOps{" + (read ? "read" : "write")
                + (writerPreference ? ", writer preference" : ", reader preference") + "}";
    }
}
