package io.latchkey.bench.redis.scale;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One library in the scale benchmark, as several independent clients (each its own connections, as separate
 * services would have). Locks are taken with the thread-owned API ({@code lock()}/{@code unlock()} on the same
 * thread) on both sides, watchdog-renewed. Names are prefixed with the run's id so that keys can be counted.
 */
abstract class ScaleSide implements AutoCloseable {

    /** A held lock; released on the thread that took it. */
    interface Held {
        void release();
    }

    final String label;
    final String prefix;

    ScaleSide(String label, String prefix) {
        this.label = label;
        this.prefix = prefix;
    }

    /** Locks {@code name} through client {@code client % clients}, then unlocks; the hold's token, or -1 if none. */
    abstract long lockUnlock(int client, String name);

    /** Locks {@code name} (watchdog) through client {@code client % clients} and keeps it. */
    abstract Held hold(int client, String name);

    /** Whether the side issues fencing tokens. */
    abstract boolean fenced();

    /** Latchkey's Redis backend: {@code LockClient.connect(uri, options)} per client. */
    static ScaleSide latchkey(String uri, int clients, Duration watchdog, String prefix) {
        ClientOptions options = ClientOptions.builder().watchdogTimeout(watchdog).namespace(prefix).build();
        List<LockClient> list = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            list.add(LockClient.connect(uri, options));
        }
        return new ScaleSide("Latchkey", prefix) {
            @Override
            long lockUnlock(int client, String name) {
                DistributedLock lock = list.get(client % list.size()).lock(name);
                lock.lock();
                try {
                    return lock.fencingToken().orElseThrow();
                } finally {
                    lock.unlock();
                }
            }

            @Override
            Held hold(int client, String name) {
                DistributedLock lock = list.get(client % list.size()).lock(name);
                lock.lock();
                return lock::unlock;
            }

            @Override
            boolean fenced() {
                return true;
            }

            @Override
            public void close() {
                list.forEach(LockClient::close);
            }
        };
    }

    /**
     * Redisson with its defaults apart from the lock watchdog: {@code RLock} (no fencing token), or with
     * {@code fenced} its {@code RFencedLock} (a token per name from {@code INCR} of a key per name).
     */
    static ScaleSide redisson(String uri, int clients, Duration watchdog, String prefix, boolean fenced) {
        List<RedissonClient> list = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            config.setLockWatchdogTimeout(watchdog.toMillis());
            list.add(Redisson.create(config));
        }
        return new ScaleSide(fenced ? "Redisson RFencedLock" : "Redisson RLock", prefix) {
            @Override
            long lockUnlock(int client, String name) {
                RedissonClient redisson = list.get(client % list.size());
                if (fenced) {
                    RFencedLock lock = redisson.getFencedLock(prefix + name);
                    Long token = lock.lockAndGetToken();
                    lock.unlock();
                    return token == null ? -1 : token;
                }
                RLock lock = redisson.getLock(prefix + name);
                lock.lock();
                lock.unlock();
                return -1;
            }

            @Override
            Held hold(int client, String name) {
                RLock lock = list.get(client % list.size()).getLock(prefix + name);
                lock.lock();
                return lock::unlock;
            }

            @Override
            boolean fenced() {
                return fenced;
            }

            @Override
            public void close() {
                list.forEach(RedissonClient::shutdown);
            }
        };
    }

    @Override
    public abstract void close();
}
