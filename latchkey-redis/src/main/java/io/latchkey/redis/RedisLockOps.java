package io.latchkey.redis;

import io.latchkey.LockHolder;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import io.lettuce.core.ScriptOutputType;
import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the Redis reentrant lock: one EVALSHA per attempt, release, hand-off and renewal batch (see
 * {@link LockScripts}; attempts and releases ready at the same time share one, see {@link ScriptGroups}). It answers single attempts: granted, or busy with the holder's remaining lease as the
 * re-check hint; the engine waits, woken by the unlock messages of the name's channel ({@link #subscribe}).
 */
final class RedisLockOps implements RemoteLockOps {

    private static final Logger log = LoggerFactory.getLogger(RedisLockOps.class);

    static final int RENEW_BATCH = RedisSyncLockOps.RENEW_BATCH;

    private final String namespace;
    private final ScriptExecutor executor;
    private final PubSubChannels channels;
    private final KeyCache<LockKeys> keyCache;
    private final AtomicBoolean subscriptionRefusedLogged = new AtomicBoolean();
    /** The client's name, recorded with each hold ({@link LockScripts#ACQUIRE}, field {@code latchkey:client}). */
    private final String clientName;

    RedisLockOps(String namespace, ScriptExecutor executor, PubSubChannels channels, String clientName) {
        this.namespace = namespace;
        this.clientName = clientName;
        this.keyCache = new KeyCache<>(name -> new LockKeys(namespace, name, executor.cluster()));
        this.executor = executor;
        this.channels = channels;
    }

    LockKeys keys(String name) {
        return keyCache.get(name);
    }

    // A grant keeps no keys of its own (they would be kept for as long as the lock is held, some 350 bytes per held
    // lock): a release or hand-off right after the acquire finds them in the cache.

    /**
     * The lock key of a held name, for the watchdog's rounds: from the cache if it is there, else derived without
     * filling the cache (a round over more held names than the cache keeps would otherwise rebuild all their keys).
     */
    private String lockKey(Grant grant) {
        LockKeys cached = keyCache.peek(grant.name());
        return cached != null ? cached.lockKey : namespace + grant.name();
    }

    @Override
    public boolean singleAttempts() {
        return true;
    }

    /** One attempt: granted, or busy until the holder's lease ends (no hint for a holder without an expiry). */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        LockKeys keys = keysForAttempt(request.name());
        long sentAt = request.time().nanoTime();
        return attempt(keys, request).thenApply(reply -> {
            if (reply > 0) {
                return Attempt.granted(new Grant(request, reply, sentAt, null));
            }
            keepKeys(keys);
            return Attempt.busy(reply == 0 ? 0 : TimeUnit.MILLISECONDS.toNanos(1 - reply));
        });
    }

    /**
     * The keys for an attempt: cached, or built without caching them (see {@link KeyCache}): a name granted at once
     * is cached by its release, a busy one by {@link #keepKeys}.
     */
    LockKeys keysForAttempt(String name) {
        return keyCache.peekOrBuild(name);
    }

    /** {@return whether the keys of {@code name} are cached} */
    boolean keysCached(String name) {
        return keyCache.peek(name) != null;
    }

    /** Caches the keys of an attempt that found the name busy: the waiter will attempt again. */
    void keepKeys(LockKeys keys) {
        keyCache.keep(keys.name, keys);
    }

    /** One attempt: the token (&gt; 0) or minus the holder's remaining lease (see {@link LockScripts#ACQUIRE}). */
    CompletableFuture<Long> attempt(LockKeys keys, AcquireRequest request) {
        return executor.grouped(LockScripts.ACQUIRE, keys.acquireKeys,
                Long.toString(request.leaseMillis()), request.ownerId(), request.attemptId(), clientName);
    }

    /** Deletes the hold the request's attempt made, if it is still that one ({@link LockScripts#CLEAN_UP}). */
    @Override
    public CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest request) {
        LockKeys keys = keys(request.name());
        return executor.<Long>run(LockScripts.CLEAN_UP, ScriptOutputType.INTEGER, keys.lockAndChannel,
                request.ownerId(), request.attemptId()).thenApply(r -> r == 1L);
    }

    /**
     * The name's unlock channel, Redisson's ({@code redisson_lock__channel:{name}}): Redisson's releases wake our
     * waiters too. A refused SUBSCRIBE (an ACL without channel access) is logged once per client; waiters then
     * re-check at the holder's lease.
     */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return channels.subscribe(keys(name).channel, changed).whenComplete((s, error) -> {
            if (error != null && !(RedisErrors.unwrap(error) instanceof LockUnavailableException)
                    && subscriptionRefusedLogged.compareAndSet(false, true)) {
                log.warn("{}; waiters of this client will re-check at the holder's lease instead of being woken by "
                        + "unlock messages. Grant the user the channels 'redisson_lock__channel:*' "
                        + "(ACL '&redisson_lock__channel:*').", RedisErrors.unwrap(error).getMessage());
            }
        });
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        LockKeys keys = keys(grant.name());
        return executor.grouped(LockScripts.RELEASE, keys.lockAndChannel,
                grant.ownerId(), Long.toString(grant.fencingToken())).thenApply(r -> r == 1L);
    }

    /** {@link LockScripts#RENEW}: ARGV owner, token and lease millis per hold. */
    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return RedisSyncLockOps.renew(executor, LockScripts.RENEW, grants, this::lockKey,
                g -> List.of(g.ownerId(), Long.toString(g.fencingToken())));
    }

    @Override
    public boolean supportsHandOff() {
        return true;
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        LockKeys keys = keys(from.name());
        long sentAt = request.time().nanoTime();
        return executor.<Long>run(LockScripts.HAND_OFF, ScriptOutputType.INTEGER, keys.acquireKeys,
                from.ownerId(), Long.toString(from.fencingToken()), request.ownerId(),
                Long.toString(request.leaseMillis()), request.attemptId(), clientName)
                .thenApply(token -> token > 0 ? new Grant(request, token, sentAt, null) : null);
    }

    /** Who holds it: one read-only script ({@link LockScripts#HOLDER}); Redis does not know who waits. */
    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        LockKeys keys = keys(name);
        return executor.<List<Object>>run(LockScripts.HOLDER, ScriptOutputType.MULTI, new String[] {keys.lockKey})
                .thenApply(RedisLockOps::holder);
    }

    /** A {@link LockScripts#HOLDER} reply as a holder; {@code null} for an empty reply (free). */
    static LockHolder holder(List<Object> r) {
        if (r == null || r.size() < 6) {
            return null;
        }
        String client = RedisSyncLockOps.text(r.get(4));
        return new LockHolder(RedisSyncLockOps.text(r.get(0)), client.isEmpty() ? LockHolder.UNKNOWN_CLIENT : client,
                RedisSyncLockOps.epochMillis(RedisSyncLockOps.text(r.get(5))), RedisSyncLockOps.leaseLeft(r.get(2)),
                RedisSyncLockOps.number(RedisSyncLockOps.text(r.get(3))), OptionalInt.empty());
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return executor.exists(keys(name).lockKey);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        LockKeys keys = keys(name);
        return executor.<Long>run(LockScripts.FORCE_UNLOCK, ScriptOutputType.INTEGER, keys.lockAndChannel)
                .thenApply(r -> r == 1L);
    }
}
