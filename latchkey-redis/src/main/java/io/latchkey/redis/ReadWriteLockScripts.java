package io.latchkey.redis;

import io.latchkey.redis.LockScripts.Script;

/**
 * The Lua scripts of the Redis read-write lock, one EVALSHA each, on the keys of {@link RedisReadWriteLockOps}:
 * {@code W} the write hold (the value of {@link FairLockScripts#HOLDS}), {@code R} the read holds ({@code owner|token}
 * scored by expiry, server ms), {@code WW} the waiting writers' intents (owner scored by when the server forgets it),
 * {@code TK} the token key ({@link FencingTokens}) and {@code RA} the attempt id of each read hold (hash
 * {@code owner|token -> attempt id}, for {@link #CLEAN_UP_READ}; an entry goes with its hold's release or clean-up, a
 * crashed reader's with the key). Expired members are removed by whichever script touches the set next; a set's
 * PEXPIRE follows its latest score, and {@code RA}'s follows {@code R}'s when a read hold is taken.
 */
final class ReadWriteLockScripts {

    /** Lua: {@code now}, the server's time in milliseconds ({@link FencingTokens#CLOCK}, read once per call). */
    static final String NOW_HERE = "local _, now = clock(); ";

    /** {@link #NOW_HERE} with the clock, for a script's top level. */
    static final String NOW = FencingTokens.CLOCK + NOW_HERE;

    /** Sets a sorted set's PEXPIRE (and {@code also}'s, if given) to its latest score: it goes with its last member. */
    static final String KEEP = "local function keep(k, also) " + NOW_HERE
            + "local last = redis.call('zrange', k, -1, -1, 'withscores'); "
            + "if last[2] then local ttl = math.max(1, tonumber(last[2]) - now + 1); redis.call('pexpire', k, ttl); "
            + "if also then redis.call('pexpire', also, ttl); end; end; "
            + "end; ";

    private static final String PURGE = "redis.call('zremrangebyscore', KEYS[2], '-inf', now); "
            + "redis.call('zremrangebyscore', KEYS[3], '-inf', now); ";

    /** KEYS: a write or fair hold. Read-only: {value, pttl}; value {@code false} if free. */
    static final Script HOLD = new Script("holdValue",
            "return {redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1])};");

    /**
     * KEYS: W, R, WW, TK. ARGV: owner, lease millis, wait (1: register the intent), intent millis, attempt id,
     * client name. Takes the write lock when nobody holds it, as {@code owner|token|attempt id}, a line with the client
     * name and one with its start ({@link #CLEAN_UP_WRITE} finds an unanswered attempt's hold by the attempt id; an
     * orphan write hold of the same owner is taken over with a new token); otherwise
     * registers the writer's intent (so new readers wait: writer preference) and returns minus the time to the next
     * re-check: the writer's remaining lease, or the earliest read hold's expiry.
     */
    static final Script ACQUIRE_WRITE = new Script("acquireWrite", NOW + KEEP + FencingTokens.NEXT + PURGE
            + "local cur = redis.call('get', KEYS[1]); "
            + "local mine = cur and string.sub(cur, 1, #ARGV[1] + 1) == ARGV[1] .. '|'; "
            + "if (not cur or mine) and redis.call('zcard', KEYS[2]) == 0 then "
            + "local token, text = next_token(KEYS[4]); "
            + "redis.call('set', KEYS[1], ARGV[1] .. '|' .. text .. '|' .. ARGV[5] .. '\\n' .. ARGV[6] .. '\\n' .. now, "
            + "'px', ARGV[2]); "
            + "redis.call('zrem', KEYS[3], ARGV[1]); "
            + "keep(KEYS[3]); "
            + "return token; "
            + "end; "
            + "local ttl; "
            + "if cur then ttl = redis.call('pttl', KEYS[1]); "
            + "else local first = redis.call('zrange', KEYS[2], 0, 0, 'withscores'); "
            + "ttl = tonumber(first[2]) - now; end; "
            + "if ttl < 1 then ttl = 1; end; "
            + "if ARGV[3] == '1' then "
            + "redis.call('zadd', KEYS[3], now + tonumber(ARGV[4]), ARGV[1]); "
            + "keep(KEYS[3]); "
            + "end; "
            + "return -ttl;");

    /**
     * KEYS: W, R, WW, TK, RA. ARGV: owner, lease millis, writer preference ({@code 1}: waiting writers' intents hold
     * the reader back; {@code 0}: only a write hold does), attempt id. Takes a read hold when no writer holds (or, with
     * writer preference, waits), or at once when the owner itself holds the write lock (downgrade), and notes its
     * attempt id in {@code RA}. Otherwise returns minus the time to the next re-check: the writer's remaining lease, or
     * the earliest writer intent's expiry.
     */
    static final Script ACQUIRE_READ = new Script("acquireRead", NOW + KEEP + FencingTokens.NEXT + PURGE
            + "local cur = redis.call('get', KEYS[1]); "
            + "local mine = cur and string.sub(cur, 1, #ARGV[1] + 1) == ARGV[1] .. '|'; "
            + "if mine or (not cur and (ARGV[3] == '0' or redis.call('zcard', KEYS[3]) == 0)) then "
            + "local token, text = next_token(KEYS[4]); "
            + "local member = ARGV[1] .. '|' .. text; "
            + "redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), member); "
            + "redis.call('hset', KEYS[5], member, ARGV[4]); "
            + "keep(KEYS[2], KEYS[5]); "
            + "return token; "
            + "end; "
            + "local ttl; "
            + "if cur then ttl = redis.call('pttl', KEYS[1]); "
            + "else local first = redis.call('zrange', KEYS[3], 0, 0, 'withscores'); "
            + "ttl = tonumber(first[2]) - now; end; "
            + "if ttl < 1 then ttl = 1; end; "
            + "return -ttl;");

    /**
     * KEYS: W, channel. ARGV: owner|token. Deletes the write hold if it is that one (its first line
     * {@code owner|token|attempt id}, or {@code owner|token} as an earlier version wrote it) and wakes everyone.
     */
    static final Script RELEASE_WRITE = new Script("releaseWrite", FairLockScripts.HOLDS
            + "if not holds(redis.call('get', KEYS[1]), ARGV[1]) then return 0; end; "
            + "redis.call('del', KEYS[1]); "
            + "redis.pcall('publish', KEYS[2], '0'); "
            + "return 1;");

    /** Lua: {@code left(R, channel)} after a read hold went: the last live reader leaving wakes the waiting writers. */
    private static final String LEFT = "local function left(r, channel) "
            + "if redis.call('zcount', r, '(' .. now, '+inf') == 0 then redis.pcall('publish', channel, '0'); end; "
            + "end; ";

    /**
     * KEYS: R, channel, RA. ARGV: owner|token. Removes the read hold and its attempt id; returns 1 if it was still
     * live, 0 if it had expired (lost). The last reader leaving wakes the waiting writers.
     */
    static final Script RELEASE_READ = new Script("releaseRead", NOW + LEFT
            + "local s = redis.call('zscore', KEYS[1], ARGV[1]); "
            + "redis.call('zrem', KEYS[1], ARGV[1]); "
            + "redis.call('hdel', KEYS[3], ARGV[1]); "
            + "left(KEYS[1], KEYS[2]); "
            + "if s and tonumber(s) > now then return 1; end; "
            + "return 0;");

    /**
     * KEYS: R, channel, RA. ARGV: owner, attempt id. The clean-up of a read attempt whose answer never arrived: removes
     * the read hold of that owner that this attempt made (found in {@code RA}, a scan of the name's read holds: a
     * clean-up is rare), never another hold of the same owner. 1 if it removed a live hold, else 0.
     */
    static final Script CLEAN_UP_READ = new Script("rwCleanUpReadAttempt", NOW + LEFT
            + "local h, prefix = redis.call('hgetall', KEYS[3]), ARGV[1] .. '|'; "
            + "for i = 1, #h, 2 do if h[i + 1] == ARGV[2] and string.sub(h[i], 1, #prefix) == prefix then "
            + "redis.call('hdel', KEYS[3], h[i]); local s = redis.call('zscore', KEYS[1], h[i]); "
            + "redis.call('zrem', KEYS[1], h[i]); left(KEYS[1], KEYS[2]); "
            + "if s and tonumber(s) > now then return 1; end; return 0; end; end; "
            + "return 0;");

    /**
     * KEYS: W, channel. ARGV: owner, attempt id. The clean-up of a write attempt whose answer never arrived: deletes
     * the write hold only if the owner holds it by that attempt (never a later hold of the same owner) and wakes
     * everyone. 1 if it deleted the hold, else 0.
     */
    static final Script CLEAN_UP_WRITE = new Script("rwCleanUpWriteAttempt", FairLockScripts.HOLDS
            + "if not made_by(redis.call('get', KEYS[1]), ARGV[1], ARGV[2]) then return 0; end; "
            + "redis.call('del', KEYS[1]); "
            + "redis.pcall('publish', KEYS[2], '0'); "
            + "return 1;");

    /**
     * KEYS: W1..Wn. ARGV: owner|token, lease millis per hold. 1 (renewed) or 0 (lost) per hold. Also renews fair locks,
     * whose holds have the same value ({@link FairLockScripts#HOLDS}).
     */
    static final Script RENEW_WRITE = new Script("renewWrite", FairLockScripts.HOLDS
            + "local result = {}; "
            + "for i = 1, #KEYS do "
            + "if holds(redis.call('get', KEYS[i]), ARGV[2 * i - 1]) then "
            + "redis.call('pexpire', KEYS[i], ARGV[2 * i]); result[i] = 1; "
            + "else result[i] = 0; end; "
            + "end; "
            + "return result;");

    /**
     * KEYS: R1..Rn (read holds, or a permit semaphore's leases). ARGV: member ({@code owner|token}, a permit id) and
     * lease millis per key. Extends each member that has not expired yet; 1 (renewed) or 0 (lost) per key.
     */
    static final Script RENEW_READ = new Script("renewRead", NOW + KEEP
            + "local result = {}; "
            + "for i = 1, #KEYS do "
            + "local s = redis.call('zscore', KEYS[i], ARGV[2 * i - 1]); "
            + "if s and tonumber(s) > now then "
            + "redis.call('zadd', KEYS[i], now + tonumber(ARGV[2 * i]), ARGV[2 * i - 1]); "
            + "keep(KEYS[i]); result[i] = 1; "
            + "else "
            + "if s then redis.call('zrem', KEYS[i], ARGV[2 * i - 1]); end; "
            + "result[i] = 0; end; "
            + "end; "
            + "return result;");

    /**
     * KEYS: WW, W, channel. ARGV: owner. A writer that gave up withdraws its intent; if it was the last and no
     * writer holds the lock, the readers it held back are woken.
     */
    static final Script WITHDRAW_WRITER = new Script("withdrawWriter",
            "if redis.call('zrem', KEYS[1], ARGV[1]) == 1 and redis.call('zcard', KEYS[1]) == 0 "
            + "and redis.call('exists', KEYS[2]) == 0 then "
            + "redis.pcall('publish', KEYS[3], '0'); "
            + "end; "
            + "return 1;");

    /** KEYS: W, R. Whether a writer or any live reader holds the lock (1 or 0). */
    static final Script IS_LOCKED = new Script("rwIsLocked", NOW
            + "if redis.call('exists', KEYS[1]) == 1 then return 1; end; "
            + "if redis.call('zcount', KEYS[2], '(' .. now, '+inf') > 0 then return 1; end; "
            + "return 0;");

    /** KEYS: W, R, WW, channel, RA. Deletes every hold and intent and wakes everyone; 1 if anything was held. */
    static final Script FORCE_UNLOCK = new Script("rwForceUnlock", NOW
            + "local held = redis.call('exists', KEYS[1]) == 1 "
            + "or redis.call('zcount', KEYS[2], '(' .. now, '+inf') > 0; "
            + "redis.call('del', KEYS[1], KEYS[2], KEYS[3], KEYS[5]); "
            + "redis.pcall('publish', KEYS[4], '0'); "
            + "if held then return 1; end; "
            + "return 0;");

    private ReadWriteLockScripts() {
    }
}
