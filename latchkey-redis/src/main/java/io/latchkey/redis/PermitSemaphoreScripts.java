package io.latchkey.redis;

import static io.latchkey.redis.ReadWriteLockScripts.KEEP;
import static io.latchkey.redis.ReadWriteLockScripts.NOW;
import static io.latchkey.redis.ReadWriteLockScripts.NOW_HERE;

import io.latchkey.redis.LockScripts.Script;

/**
 * The Lua scripts of the Redis permit-expirable semaphore, one EVALSHA each, on the keys of
 * {@link RedisPermitExpirableSemaphoreOps}: {@code P} the permits in total and {@code L} the leased permit ids scored
 * by expiry (server ms). Available = {@code P} &minus; live leases; expired leases are removed by whichever script
 * touches {@code L} next, whose PEXPIRE follows its latest score. A lease and its return can run in a group
 * ({@link ScriptGroups}).
 */
final class PermitSemaphoreScripts {

    /**
     * KEYS: P, L. ARGV: permit id, lease millis, longest re-check millis. Leases a permit under the id: 1; or
     * minus the time until the earliest lease expires (capped by the longest re-check).
     */
    static final Script ACQUIRE = LockScripts.member("permitAcquire", FencingTokens.CLOCK + KEEP, NOW_HERE
            + "redis.call('zremrangebyscore', KEYS[2], '-inf', now); "
            + "local total = tonumber(redis.call('get', KEYS[1]) or '0'); "
            + "if total - redis.call('zcard', KEYS[2]) >= 1 then "
            + "redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[1]); keep(KEYS[2]); return 1; "
            + "end; "
            + "local wait = tonumber(ARGV[3]); "
            + "local first = redis.call('zrange', KEYS[2], 0, 0, 'withscores'); "
            + "if first[2] then wait = math.min(wait, math.max(1, tonumber(first[2]) - now)); end; "
            + "return -wait;");

    /**
     * KEYS: L, channel. ARGV: permit id. Returns the permit if its lease is live: 1 (and wakes waiters); 0 if it
     * had expired or was unknown.
     */
    static final Script RELEASE = LockScripts.member("permitRelease", FencingTokens.CLOCK, NOW_HERE
            + "local s = redis.call('zscore', KEYS[1], ARGV[1]); "
            + "if not s then return 0; end; "
            + "redis.call('zrem', KEYS[1], ARGV[1]); "
            + "if tonumber(s) <= now then return 0; end; "
            + "redis.pcall('publish', KEYS[2], '1'); "
            + "return 1;");

    /** KEYS: L. ARGV: permit id, lease millis. A new lease from now if the current one is live: 1; else 0. */
    static final Script UPDATE_LEASE = new Script("permitUpdateLease", NOW + KEEP
            + "local s = redis.call('zscore', KEYS[1], ARGV[1]); "
            + "if not s then return 0; end; "
            + "if tonumber(s) <= now then redis.call('zrem', KEYS[1], ARGV[1]); return 0; end; "
            + "redis.call('zadd', KEYS[1], now + tonumber(ARGV[2]), ARGV[1]); keep(KEYS[1]); "
            + "return 1;");

    /** KEYS: P, L. The permits available now (expired leases count as available). */
    static final Script AVAILABLE = new Script("permitAvailable", NOW
            + "redis.call('zremrangebyscore', KEYS[2], '-inf', now); "
            + "return tonumber(redis.call('get', KEYS[1]) or '0') - redis.call('zcard', KEYS[2]);");

    private PermitSemaphoreScripts() {
    }
}
