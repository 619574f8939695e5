package io.latchkey.redis;

import io.latchkey.redis.LockScripts.Script;

/**
 * The Lua scripts of the Redis count-down latch, one EVALSHA each. Layout ({@link RedisCountDownLatch}): {@code C}
 * = string, the count; absent means open (count zero). Reaching zero deletes it and publishes on the latch's
 * channel.
 */
final class CountDownLatchScripts {

    /** KEYS: C. ARGV: count. Arms an open latch: 1; an armed latch keeps its count: 0. */
    static final Script TRY_SET = new Script("latchTrySet",
            "if tonumber(redis.call('get', KEYS[1]) or '0') > 0 then return 0; end; "
            + "redis.call('set', KEYS[1], ARGV[1]); "
            + "return 1;");

    /** KEYS: C, channel. Decrements an armed latch; at zero deletes it and wakes every waiter. The new count. */
    static final Script COUNT_DOWN = new Script("latchCountDown",
            "if redis.call('exists', KEYS[1]) == 0 then return 0; end; "
            + "local v = redis.call('decr', KEYS[1]); "
            + "if v <= 0 then redis.call('del', KEYS[1]); redis.pcall('publish', KEYS[2], '0'); return 0; end; "
            + "return v;");

    /** KEYS: C. ARGV: re-check millis. 1 if open, else minus the re-check time. */
    static final Script IS_OPEN = new Script("latchIsOpen",
            "if tonumber(redis.call('get', KEYS[1]) or '0') <= 0 then return 1; end; "
            + "return -tonumber(ARGV[1]);");

    private CountDownLatchScripts() {
    }
}
