package io.latchkey.spring.integration;

import io.latchkey.LockClient;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration 7 {@link org.springframework.integration.support.locks.LockRegistry} over any Latchkey
 * {@link LockClient}: where an application used {@code RedisLockRegistry}, {@code JdbcLockRegistry} or
 * {@code ZookeeperLockRegistry} (aggregators, {@code LockRegistryLeaderInitiator}, {@code executeLocked}), it
 * switches by replacing that one bean.
 *
 * <pre>{@code
 * @Bean
 * LatchkeyLockRegistry lockRegistry(LockClient client) {
 *     return new LatchkeyLockRegistry(client);
 * }
 * }</pre>
 *
 * <p><b>Locks.</b> {@link #obtain(Object)} returns, for a key, the same {@link DistributedLock} until
 * {@link #expireUnusedOlderThan(long)} drops it: Latchkey's thread-owned, reentrant lock named
 * {@code prefix + key.toString()}, so it is held by the thread that locked it, like every Spring Integration
 * registry's lock. Waiting, interruption and {@code tryLock} behave as {@link java.util.concurrent.locks.Lock}
 * says; {@code newCondition()} is unsupported.
 *
 * <p><b>TTL and renewal.</b> {@code lock()} and {@code tryLock(..)} without a TTL take a lease the client's watchdog
 * renews while it is held (a crashed process frees it after the client's watchdog timeout): what
 * {@code setRenewalTaskScheduler} gives other registries, with no scheduler to configure. With
 * {@link #setDefaultTtl(Duration)} they take a fixed lease of that length instead, and
 * {@link DistributedLock#lock(Duration)} / {@link DistributedLock#tryLock(Duration, Duration)} take one of the given
 * length: the lock frees itself when it runs out, held or not. {@link #renewLock(Object)} on a watchdog-renewed
 * hold of the current thread does nothing more than the watchdog already does; a fixed lease cannot be renewed
 * ({@link UnsupportedOperationException}); without a hold by the current thread it throws
 * {@link IllegalStateException}.
 *
 * <p><b>Lost locks</b> (renewal failed, lease ran out, session expired) are told at {@code unlock()}, which throws
 * {@link io.latchkey.LockLostException} (an {@link IllegalMonitorStateException}), as Spring Integration's own
 * registries throw on an expired lock.
 *
 * <p><b>Memory effects</b> are those of the lock: actions before {@code unlock()} happen-before actions after a
 * later {@code lock()} of the same key, on any node of the same backend.
 */
public class LatchkeyLockRegistry implements ExpirableLockRegistry<DistributedLock>,
        RenewableLockRegistry<DistributedLock> {

    private final LockClient client;
    private final String prefix;
    private final Map<String, LatchkeyIntegrationLock> locks = new ConcurrentHashMap<>();
    private volatile Duration defaultTtl;

    /**
     * Creates a registry over {@code client}, lock names being the keys' {@code toString()}.
     *
     * @param client the lock client whose {@link LockClient#lock(String) locks} the registry hands out; it stays
     *        the caller's to close
     * @throws NullPointerException if {@code client} is null
     */
    public LatchkeyLockRegistry(LockClient client) {
        this(client, "");
    }

    /**
     * Creates a registry over {@code client} whose lock names are {@code prefix + key.toString()}, as Spring
     * Integration's registries take a registry key.
     *
     * @param client the lock client whose locks the registry hands out; it stays the caller's to close
     * @param prefix prepended to every key's {@code toString()} to make the lock name; may be empty, not null
     * @throws NullPointerException if an argument is null
     */
    public LatchkeyLockRegistry(LockClient client, String prefix) {
        this.client = Objects.requireNonNull(client, "client");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
    }

    /**
     * Sets the lease of {@code lock()} and {@code tryLock(..)} for locks obtained before or after this call; holds
     * already taken keep theirs.
     *
     * @param defaultTtl {@code null} (the default) for a watchdog-renewed lease, or a positive duration for a fixed
     *        one
     * @throws IllegalArgumentException if {@code defaultTtl} is zero or negative
     */
    public void setDefaultTtl(Duration defaultTtl) {
        if (defaultTtl != null && (defaultTtl.isZero() || defaultTtl.isNegative())) {
            throw new IllegalArgumentException(String.format("defaultTtl must be positive or null but was %s",
                    defaultTtl));
        }
        this.defaultTtl = defaultTtl;
    }

    @Override
    public DistributedLock obtain(Object lockKey) {
        String name = name(lockKey);
        return locks.compute(name, (n, existing) -> {
            LatchkeyIntegrationLock lock = existing != null ? existing
                    : new LatchkeyIntegrationLock(client.lock(n), () -> defaultTtl);
            lock.touch();
            return lock;
        });
    }

    /** Drops the cached locks of keys that no thread of this registry holds and that were last obtained or released longer than {@code age} ms ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long cutoff = System.currentTimeMillis() - age;
        locks.entrySet().removeIf(e -> e.getValue().isUnusedSince(cutoff));
    }

    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, null);
    }

    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        LatchkeyIntegrationLock lock = locks.get(name(lockKey));
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException(String.format(
                    "lock '%s' is not held by the current thread, so it cannot be renewed", name(lockKey)));
        }
        lock.renew();
    }

    private String name(Object lockKey) {
        Objects.requireNonNull(lockKey, "lockKey");
        return prefix + lockKey;
    }

    @Override
    public String toString() {
        return "LatchkeyLockRegistry[" + client.clientId() + (prefix.isEmpty() ? "" : ", prefix " + prefix) + "]";
    }
}
