package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.core.RemoteLockOps;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The Redis synchronizers beyond the plain lock (read-write lock, fair lock, …), created once per client on the
 * client's one command connection and pub/sub channels; spin locks are ops of the client's one engine too.
 */
final class RedisSynchronizers {

    /**
     * The longest the server remembers a waiter (a fair lock's queue entry, a writer's intent) that stopped asking:
     * a crashed waiter delays the others by at most this. Waiters ask again every third of it.
     */
    static final Duration MAX_WAITER_HEARTBEAT = Duration.ofSeconds(5);
    /** Default first backoff of a spin lock's waiter. */
    static final Duration SPIN_INITIAL_BACKOFF = Duration.ofMillis(4);
    /** Default longest backoff of a spin lock's waiter. */
    static final Duration SPIN_MAX_BACKOFF = Duration.ofMillis(128);
    /**
     * The most distinct backoff pairs one client keeps spin ops for: each pair is one ops instance for the client's
     * lifetime (the engine keys its waiters by it), so a pair computed per call must not grow without bound.
     */
    static final int MAX_SPIN_BACKOFFS = 64;

    private final RedisReadWriteLockOps[] readWrite = new RedisReadWriteLockOps[4];
    private final RedisFairLockOps fairOps;
    private final RedisSemaphoreOps semaphoreOps;
    private final RedisPermitExpirableSemaphoreOps permitOps;
    private final RedisCountDownLatchOps latchOps;
    private final RedisLockOps lockOps;
    private final UnaryOperator<RemoteLockOps> spinWrap;
    private final ReentrantLock spinLock = new ReentrantLock();
    private final Map<List<Long>, RemoteLockOps> spinOps = new HashMap<>(); // guarded by spinLock

    /**
     * @param lockOps the plain lock's ops, whose keys and scripts the spin locks share
     * @param spinWrap decorates each spin ops (replica acknowledgement)
     */
    RedisSynchronizers(ClientOptions options, ScriptExecutor executor, PubSubChannels channels, String clientId,
                       RedisLockOps lockOps, UnaryOperator<RemoteLockOps> spinWrap) {
        this.lockOps = lockOps;
        this.spinWrap = spinWrap;
        Duration watchdog = options.watchdogTimeout();
        long heartbeatMillis = Math.max(30, (watchdog.compareTo(MAX_WAITER_HEARTBEAT) < 0 ? watchdog
                : MAX_WAITER_HEARTBEAT).toMillis());
        KeyCache<RedisReadWriteLockOps.Keys> rwKeys =
                new KeyCache<>(name -> new RedisReadWriteLockOps.Keys(options.namespace(), name,
                        executor.cluster()));
        Withdrawals withdrawals = new Withdrawals(executor.scheduler());
        for (int i = 0; i < readWrite.length; i++) { // read, write; writer preference, then reader preference
            readWrite[i] = new RedisReadWriteLockOps(i % 2 == 0, i < 2, executor, channels, heartbeatMillis, rwKeys,
                    withdrawals, options.clientName());
        }
        long recheck = Math.max(1, heartbeatMillis / 3);
        this.semaphoreOps = new RedisSemaphoreOps(options.namespace(), clientId, executor, channels, recheck);
        this.permitOps = new RedisPermitExpirableSemaphoreOps(options.namespace(), executor, channels, recheck);
        this.latchOps = new RedisCountDownLatchOps(options.namespace(), executor, channels, recheck);
        this.fairOps = new RedisFairLockOps(options.namespace(), clientId, executor, channels, heartbeatMillis,
                withdrawals, options.clientName());
    }

    RedisFairLockOps fairOps() {
        return fairOps;
    }

    RedisReadWriteLockOps readOps() {
        return readWrite[0];
    }

    RedisReadWriteLockOps writeOps() {
        return readWrite[1];
    }

    /** The read half of the reader-preference read-write lock (waiting writers do not hold readers back). */
    RedisReadWriteLockOps readerPreferenceReadOps() {
        return readWrite[2];
    }

    /** The write half of the reader-preference read-write lock (registers no intent while waiting). */
    RedisReadWriteLockOps readerPreferenceWriteOps() {
        return readWrite[3];
    }

    RedisSemaphoreOps semaphoreOps() {
        return semaphoreOps;
    }

    RedisCountDownLatchOps countDownLatchOps() {
        return latchOps;
    }

    RedisPermitExpirableSemaphoreOps permitExpirableSemaphoreOps() {
        return permitOps;
    }

    /** The remote half of the client's spin locks with the default backoff. */
    RemoteLockOps spinOps() {
        return spinOps(SPIN_INITIAL_BACKOFF.toNanos(), SPIN_MAX_BACKOFF.toNanos());
    }

    /** The remote half of the client's spin locks with this backoff, wrapped for replica acknowledgement. */
    RemoteLockOps spinOps(long initialBackoffNanos, long maxBackoffNanos) {
        List<Long> key = List.of(initialBackoffNanos, maxBackoffNanos);
        spinLock.lock();
        try {
            RemoteLockOps ops = spinOps.get(key);
            if (ops == null) {
                if (spinOps.size() >= MAX_SPIN_BACKOFFS) {
                    throw new IllegalArgumentException(String.format(
                            "a client keeps at most %d distinct spin lock backoffs but was asked for another "
                                    + "(%d ns..%d ns); reuse a few configurations", MAX_SPIN_BACKOFFS,
                            initialBackoffNanos, maxBackoffNanos));
                }
                ops = spinWrap.apply(new RedisSpinLockOps(lockOps, initialBackoffNanos, maxBackoffNanos));
                spinOps.put(key, ops);
            }
            return ops;
        } finally {
            spinLock.unlock();
        }
    }
}
