package io.latchkey.redis;

import io.latchkey.redis.LockScripts.Script;

/**
 * The Lua scripts of the Redis semaphore, one EVALSHA each. Layout ({@link RedisSemaphoreOps}): {@code P} = string,
 * the available permits (absent: never set); {@code T} = hash, take id → permits, the takes whose answer the client
 * has not confirmed yet (with a PEXPIRE; absent when there are none); releases, added permits, given-back takes and a
 * first {@code trySetPermits} publish on the semaphore's channel.
 */
final class SemaphoreScripts {

    /**
     * KEYS: P, T. ARGV: permits, re-check millis, take id, record millis, then the ids of earlier takes whose answer
     * arrived (their records go). Takes the permits if that many are available and records the take under its id
     * for the record's time (so that a client that lost the answer can give them back): 1; otherwise minus the
     * re-check time (waiters are woken by messages; this bounds a lost one).
     */
    static final Script ACQUIRE = LockScripts.member("semaphoreAcquire", "",
            "for i = 5, #ARGV do redis.call('hdel', KEYS[2], ARGV[i]); end; "
            + "local v = tonumber(redis.call('get', KEYS[1]) or '0'); "
            + "if v >= tonumber(ARGV[1]) then redis.call('decrby', KEYS[1], ARGV[1]); "
            + "redis.call('hset', KEYS[2], ARGV[3], ARGV[1]); redis.call('pexpire', KEYS[2], ARGV[4]); return 1; end; "
            + "return -tonumber(ARGV[2]);");

    /**
     * KEYS: P, T, channel. ARGV: take id. Gives back the permits of a take whose answer was lost, if it was applied
     * and not given back yet, and wakes waiters: how many it gave back (0: the take was never applied).
     */
    static final Script GIVE_BACK = new Script("semaphoreGiveBack",
            "local n = redis.call('hget', KEYS[2], ARGV[1]); "
            + "if not n then return 0; end; "
            + "redis.call('hdel', KEYS[2], ARGV[1]); "
            + "redis.call('incrby', KEYS[1], n); "
            + "redis.pcall('publish', KEYS[3], n); "
            + "return tonumber(n);");

    /**
     * KEYS: P, channel, T. ARGV: permits (negative removes), then the ids of takes whose answer arrived (their
     * records go). Adds the permits (setting the semaphore if it never was) and wakes waiters when permits were
     * added. Returns the new count.
     */
    static final Script ADD = LockScripts.member("semaphoreAdd", "",
            "for i = 2, #ARGV do redis.call('hdel', KEYS[3], ARGV[i]); end; "
            + "local v = redis.call('incrby', KEYS[1], ARGV[1]); "
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
