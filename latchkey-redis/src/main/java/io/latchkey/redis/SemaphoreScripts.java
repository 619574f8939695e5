package io.latchkey.redis;

import io.latchkey.redis.LockScripts.Script;

/**
 * The Lua scripts of the Redis semaphore, one EVALSHA each. Layout ({@link RedisSemaphoreOps}): {@code P} = string,
 * the available permits (absent: never set); releases, added permits and a first {@code trySetPermits} publish on
 * the semaphore's channel.
 */
final class SemaphoreScripts {

    /**
     * KEYS: P. ARGV: permits, re-check millis. Takes the permits if that many are available: 1; otherwise minus the
     * re-check time (waiters are woken by messages; this bounds a lost one).
     */
    static final Script ACQUIRE = new Script("semaphoreAcquire",
            "local v = tonumber(redis.call('get', KEYS[1]) or '0'); "
            + "if v >= tonumber(ARGV[1]) then redis.call('decrby', KEYS[1], ARGV[1]); return 1; end; "
            + "return -tonumber(ARGV[2]);");

    /**
     * KEYS: P, channel. ARGV: permits (negative removes). Adds the permits (setting the semaphore if it never
     * was) and wakes waiters when permits were added. Returns the new count.
     */
    static final Script ADD = new Script("semaphoreAdd",
            "local v = redis.call('incrby', KEYS[1], ARGV[1]); "
            + "if tonumber(ARGV[1]) > 0 then redis.pcall('publish', KEYS[2], ARGV[1]); end; "
            + "return v;");

    /** KEYS: P, channel. ARGV: permits. Sets the permits if never set and wakes waiters: 1; else 0. */
    static final Script TRY_SET = new Script("semaphoreTrySet",
            "if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then "
            + "redis.pcall('publish', KEYS[2], ARGV[1]); return 1; end; "
            + "return 0;");

    /** KEYS: P. Takes every available permit; returns how many. */
    static final Script DRAIN = new Script("semaphoreDrain",
            "local v = tonumber(redis.call('get', KEYS[1]) or '0'); "
            + "if v > 0 then redis.call('decrby', KEYS[1], v); return v; end; "
            + "return 0;");

    private SemaphoreScripts() {
    }
}
