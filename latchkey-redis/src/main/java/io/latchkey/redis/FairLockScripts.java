package io.latchkey.redis;

import static io.latchkey.redis.ReadWriteLockScripts.NOW;

import io.latchkey.redis.LockScripts.Script;

/**
 * The Lua scripts of the Redis fair lock, one EVALSHA each, on the keys of {@link RedisFairLockOps}: {@code L} the
 * hold (see {@link #HOLDS}), with PEXPIRE; {@code Q} the waiting owners scored by the arrival sequence {@code S};
 * {@code T} the same owners scored by when the server forgets them (server time + heartbeat); {@code TK} the token key
 * ({@link FencingTokens}). Only server time and the server's sequence
 * decide order and expiry, never clients' clocks. An empty queue leaves no {@code Q}, {@code T} or {@code S}.
 */
final class FairLockScripts {

    /** Drops waiters whose heartbeat ran out (crashed or cut off clients). */
    private static final String PURGE = "local dead = redis.call('zrangebyscore', KEYS[3], '-inf', now); "
            + "for _, w in ipairs(dead) do redis.call('zrem', KEYS[2], w); redis.call('zrem', KEYS[3], w); end; ";

    /**
     * Lua, for a fair or write hold's value {@code cur} ({@code false} if free): {@code owner|token|attempt id}, a line
     * with the client's name and one with the hold's start (server ms), or {@code owner|token} alone as an earlier
     * version wrote it. {@code first_line(cur)}; {@code holds(cur, ownerToken)}, whether it is the hold
     * {@code owner|token}; {@code made_by(cur, owner, attemptId)}, whether that owner holds it by that attempt.
     */
    static final String HOLDS = "local function first_line(v) "
            + "if type(v) ~= 'string' then return nil; end; "
            + "local nl = string.find(v, '\\n', 1, true); "
            + "if nl then return string.sub(v, 1, nl - 1); end; "
            + "return v; end; "
            + "local function holds(cur, v) "
            + "local f = first_line(cur); "
            + "return f ~= nil and (f == v or string.sub(f, 1, #v + 1) == v .. '|'); end; "
            + "local function made_by(cur, owner, attempt) "
            + "local f = first_line(cur); "
            + "return f ~= nil and string.sub(f, 1, #owner + 1) == owner .. '|' "
            + "and string.sub(f, -(#attempt + 1)) == '|' .. attempt; end; ";

    /** Deletes the sequence (and the timeouts) once the queue is empty: nothing of a free, unwaited name stays. */
    private static final String TIDY = "if redis.call('exists', KEYS[2]) == 0 then redis.call('del', KEYS[3], KEYS[4]); end; ";

    /**
     * KEYS: L, Q, T, S, TK. ARGV: owner, lease millis, wait (1: queue the owner), heartbeat millis, channel,
     * attempt id, client name. Takes the lock if it is free and the owner is first in line (or nobody waits), as
     * {@code owner|token|attempt id}, a line with the client name and one with the server's time now
     * ({@link #CLEAN_UP} finds an unanswered attempt's hold by the attempt id); an orphan hold of the
     * same owner is taken over with a new token. Otherwise queues the owner (once; its place is kept while it keeps
     * asking), wakes the head if the lock is free and the head is someone else, and returns minus the time to the
     * next re-check: the holder's remaining lease, or the head's heartbeat expiry.
     */
    static final Script ACQUIRE = new Script("fairAcquire", NOW + FencingTokens.NEXT + PURGE
            + "local cur = redis.call('get', KEYS[1]); "
            + "local mine = cur and string.sub(cur, 1, #ARGV[1] + 1) == ARGV[1] .. '|'; "
            + "local head = redis.call('zrange', KEYS[2], 0, 0)[1]; "
            + "if (not cur or mine) and (not head or head == ARGV[1]) then "
            + "redis.call('zrem', KEYS[2], ARGV[1]); redis.call('zrem', KEYS[3], ARGV[1]); "
            + "if redis.call('zcard', KEYS[2]) == 0 then redis.call('del', KEYS[2], KEYS[3], KEYS[4]); end; "
            + "local token, text = next_token(KEYS[5]); "
            + "redis.call('set', KEYS[1], ARGV[1] .. '|' .. text .. '|' .. ARGV[6] .. '\\n' .. ARGV[7] .. '\\n' .. now, "
            + "'px', ARGV[2]); "
            + "return token; "
            + "end; "
            + "local ttl; "
            + "if cur then ttl = redis.call('pttl', KEYS[1]); "
            + "else "
            + "redis.pcall('publish', ARGV[5], head); "
            + "local hs = redis.call('zscore', KEYS[3], head); "
            + "if hs then ttl = tonumber(hs) - now; else redis.call('zrem', KEYS[2], head); ttl = 1; end; "
            + "end; "
            + "if ttl < 1 then ttl = 1; end; "
            + "if ARGV[3] == '1' then "
            + "if not redis.call('zscore', KEYS[2], ARGV[1]) then "
            + "redis.call('zadd', KEYS[2], redis.call('incr', KEYS[4]), ARGV[1]); "
            + "end; "
            + "redis.call('zadd', KEYS[3], now + tonumber(ARGV[4]), ARGV[1]); "
            + "local last = tonumber(redis.call('zrange', KEYS[3], -1, -1, 'withscores')[2]) - now + 1; "
            + "for i = 2, 4 do redis.call('pexpire', KEYS[i], last); end; "
            + "end; "
            + TIDY
            + "return -ttl;");

    /**
     * KEYS: L, Q, T, S. ARGV: owner|token, channel, the releasing client's owner prefix ({@code clientId:}).
     * Releases the hold if it is that one and names the head of the queue on the name's channel (only the head's
     * client looks again), unless it is a waiter of the releasing client, which is woken at this script's reply (no
     * message to wait for). An
     * emptied queue leaves no key behind. {@code {1, head}} if released ({@code {1}} if nobody waits); {@code {0}}
     * if the hold was gone (lost).
     */
    static final Script RELEASE = new Script("fairRelease", HOLDS
            + "if not holds(redis.call('get', KEYS[1]), ARGV[1]) then return {0}; end; "
            + "redis.call('del', KEYS[1]); "
            + NOW + PURGE
            + "local head = redis.call('zrange', KEYS[2], 0, 0)[1]; "
            + "if not head then " + TIDY + "return {1}; end; "
            + "if string.sub(head, 1, #ARGV[3]) ~= ARGV[3] then redis.pcall('publish', ARGV[2], head); end; "
            + "return {1, head};");

    /**
     * KEYS: L, Q, T, S. ARGV: owner, attempt id, channel. The clean-up of an attempt whose answer never arrived:
     * deletes the hold only if the owner holds it by that attempt (never a later hold of the same owner, which has
     * another attempt id) and names the head of the queue. 1 if it deleted the hold, else 0.
     */
    static final Script CLEAN_UP = new Script("fairCleanUpAttempt", HOLDS
            + "if not made_by(redis.call('get', KEYS[1]), ARGV[1], ARGV[2]) then return 0; end; "
            + "redis.call('del', KEYS[1]); "
            + NOW + PURGE
            + "local head = redis.call('zrange', KEYS[2], 0, 0)[1]; "
            + "if head then redis.pcall('publish', ARGV[3], head); end; "
            + TIDY
            + "return 1;");

    /**
     * KEYS: L, Q, T, S. ARGV: owner, channel. A waiter that gave up leaves the queue; if the lock is free the new head
     * is named on the channel.
     */
    static final Script WITHDRAW = new Script("fairWithdraw",
            "redis.call('zrem', KEYS[3], ARGV[1]); "
            + "if redis.call('zrem', KEYS[2], ARGV[1]) == 1 and redis.call('exists', KEYS[1]) == 0 then "
            + "local head = redis.call('zrange', KEYS[2], 0, 0)[1]; "
            + "if head then redis.pcall('publish', ARGV[2], head); end; "
            + "end; "
            + TIDY
            + "return 1;");

    /** KEYS: L, Q, T, S. ARGV: channel. Deletes the hold whoever has it and names the head; 1 if it was held. */
    static final Script FORCE_UNLOCK = new Script("fairForceUnlock",
            "if redis.call('del', KEYS[1]) == 0 then return 0; end; "
            + "local head = redis.call('zrange', KEYS[2], 0, 0)[1]; "
            + "if head then redis.pcall('publish', ARGV[1], head); end; "
            + "return 1;");

    private FairLockScripts() {
    }
}
