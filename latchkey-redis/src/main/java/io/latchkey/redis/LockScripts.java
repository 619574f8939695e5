package io.latchkey.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The Lua scripts of the Redis lock. Each runs atomically on the server and is one EVALSHA round trip.
 *
 * <p>Layout (see {@link LockKeys}): the lock is a hash {@code owner -> hold count} with a PEXPIRE, as Redisson's
 * {@code RLock} keeps it, plus the field {@code latchkey:token} with the hold's fencing token (a Latchkey hold
 * only), so the token expires and is deleted with the hold. Tokens come from {@link FencingTokens}: {@code max(last
 * + 1, server µs)} from the namespace's (cluster: slot's) token key. A hold is identified by owner <em>and</em>
 * token: renewal, release and hand-off check both, so an operation issued for an earlier hold can never act on a
 * later hold of the same owner.
 *
 * <p>Who holds it, for operators ({@link #HOLDER}): the fields {@code latchkey:client} (the holding client's name) and
 * {@code latchkey:since} (the server's {@code TIME} when the hold began, epoch milliseconds), written with the hold, in
 * the same {@code HSET}, by {@link #ACQUIRE} and {@link #HAND_OFF} and deleted with it. Redisson ignores fields other
 * than its owner's, and inspection skips every field starting with {@code latchkey:}. The field {@code
 * latchkey:attempt} keeps the id of the acquire attempt that made the hold, for {@link #CLEAN_UP}.
 */
final class LockScripts {

    /**
     * Lua: {@code since()}, the server's time now ({@link FencingTokens#CLOCK}) as the text of epoch milliseconds,
     * for the hold's {@code latchkey:since} field: formatted once per script call, like the clock is read once.
     */
    static final String SINCE = "local since_text; local function since() if not since_text then "
            + "local _, ms = clock(); since_text = string.format('%.0f', ms); end; return since_text; end; ";

    /** What every script that takes a hold starts with: the clock, {@code next_token} and {@code since}. */
    static final String TAKES = FencingTokens.CLOCK + FencingTokens.NEXT + SINCE;

    /**
     * KEYS: lock, token key. ARGV: lease millis, owner, attempt id, client name. Returns a new token
     * (&gt; 0) if taken, otherwise {@code -pttl} of the holder's lease ({@code 0} if it has none), so the caller
     * knows when to re-check.
     *
     * <p>The engine counts reentrancy locally and only asks when it holds nothing, so an owner field that is
     * already there is an orphan of an attempt the engine gave up on (its reply timed out, but the server ran it).
     * It is taken over as a new hold with a NEW token and count 1: the engine's clean-up release of the orphan
     * (old token) then fails its token check instead of deleting the new hold. The hold keeps the attempt's id in the
     * field {@code latchkey:attempt}: {@link #CLEAN_UP} removes it by that id when the answer never arrived.
     */
    static final Script ACQUIRE = member("acquire", TAKES,
            "if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then "
            + "local token, text = next_token(KEYS[2]); "
            + "redis.call('hset', KEYS[1], ARGV[2], '1', 'latchkey:token', text, 'latchkey:attempt', ARGV[3], "
            + "'latchkey:client', ARGV[4], 'latchkey:since', since()); "
            + "redis.call('pexpire', KEYS[1], ARGV[1]); "
            + "return token; "
            + "end; "
            + "local ttl = redis.call('pttl', KEYS[1]); "
            + "if ttl < 0 then ttl = 0; end; "
            + "return -ttl;");

    /**
     * KEYS: lock, channel. ARGV: owner, token. Deletes the lock and publishes Redisson's unlock message
     * ({@code 0}) if the owner holds it with that token, whatever its hold count (the engine counts reentrancy
     * locally and releases once). Returns 1 if released, 0 if the hold was gone (lost). The PUBLISH is a
     * {@code pcall}: a user whose ACL denies the channel (Redis 7's default for new users) still releases, and
     * waiters then wake at their bounded re-check.
     */
    static final Script RELEASE = member("release", "",
            "local h = redis.call('hmget', KEYS[1], ARGV[1], 'latchkey:token'); "
            + "if not h[1] or h[2] ~= ARGV[2] then return 0; end; "
            + "redis.call('del', KEYS[1]); "
            + "redis.pcall('publish', KEYS[2], '0'); "
            + "return 1;");

    /**
     * KEYS: lock, channel. ARGV: owner, attempt id. The clean-up of an attempt whose answer never arrived (the
     * operation timeout, a lost connection, a paused server that ran the attempt later): deletes the lock and wakes
     * waiters only if the owner holds it by that attempt, never a later hold of the same owner (a thread's next
     * acquire stores another attempt id). Returns 1 if it deleted the hold, 0 otherwise.
     */
    static final Script CLEAN_UP = new Script("cleanUpAttempt",
            "local h = redis.call('hmget', KEYS[1], ARGV[1], 'latchkey:attempt'); "
            + "if not h[1] or h[2] ~= ARGV[2] then return 0; end; "
            + "redis.call('del', KEYS[1]); "
            + "redis.pcall('publish', KEYS[2], '0'); "
            + "return 1;");

    /**
     * KEYS: lock1, lock2, … ARGV: owner1, token1, lease1, owner2, … Extends each lease whose exact hold (owner
     * present and token unchanged) still exists. Returns one 1 (renewed) or 0 (lost) per hold.
     */
    static final Script RENEW = new Script("renew",
            "local result = {}; "
            + "for i = 1, #KEYS do "
            + "local a = (i - 1) * 3; "
            + "local h = redis.call('hmget', KEYS[i], ARGV[a + 1], 'latchkey:token'); "
            + "if h[1] and h[2] == ARGV[a + 2] then "
            + "redis.call('pexpire', KEYS[i], ARGV[a + 3]); "
            + "result[i] = 1; "
            + "else result[i] = 0; end; "
            + "end; "
            + "return result;");

    /**
     * KEYS: lock, token key. ARGV: from owner, from token, to owner, lease millis, the receiving
     * request's attempt id, the receiving client's name. Passes the hold to the new owner with a new token and lease
     * without freeing the lock in between. Returns the new token, or 0 if the old hold was gone.
     */
    static final Script HAND_OFF = new Script("handOff", TAKES
            + "local h = redis.call('hmget', KEYS[1], ARGV[1], 'latchkey:token'); "
            + "if not h[1] or h[2] ~= ARGV[2] then return 0; end; "
            + "local token, text = next_token(KEYS[2]); "
            + "redis.call('del', KEYS[1]); "
            + "redis.call('hset', KEYS[1], ARGV[3], '1', 'latchkey:token', text, 'latchkey:attempt', ARGV[5], "
            + "'latchkey:client', ARGV[6], 'latchkey:since', since()); "
            + "redis.call('pexpire', KEYS[1], ARGV[4]); "
            + "return token;");

    /**
     * KEYS: lock. Read-only: {owner, count, pttl, token, client, since} of the first holder ({@code ''} for a field
     * the hold lacks: a Redisson holder has no token, client or start), or an empty array if the lock is free. Off
     * the hot path: {@code holder()}, and a timed-out wait that reports its holder.
     */
    static final Script HOLDER = new Script("holder",
            "local h = redis.call('hgetall', KEYS[1]); "
            + "local owner, count, token, client, since = nil, nil, '', '', ''; "
            + "for i = 1, #h, 2 do "
            + "if h[i] == 'latchkey:token' then token = h[i + 1]; "
            + "elseif h[i] == 'latchkey:client' then client = h[i + 1]; "
            + "elseif h[i] == 'latchkey:since' then since = h[i + 1]; "
            + "elseif not owner and string.sub(h[i], 1, 9) ~= 'latchkey:' then owner = h[i]; count = h[i + 1]; end; "
            + "end; "
            + "if not owner then return {}; end; "
            + "return {owner, count, redis.call('pttl', KEYS[1]), token, client, since};");

    /** KEYS: lock, channel. Deletes the lock whoever holds it and wakes waiters. Returns 1 if it was held. */
    static final Script FORCE_UNLOCK = new Script("forceUnlock",
            "if redis.call('del', KEYS[1]) == 1 then "
            + "redis.pcall('publish', KEYS[2], '0'); "
            + "return 1; "
            + "end; "
            + "return 0;");

    private LockScripts() {
    }

    /**
     * A script that can also run in a group ({@link ScriptGroups#GROUP}): {@code prelude}, then {@code body} as the
     * Lua function {@code name(KEYS, ARGV)} ({@link Script#function}), which the script calls.
     */
    static Script member(String name, String prelude, String body) {
        String function = "local function " + name + "(KEYS, ARGV) " + body + " end; ";
        return new Script(name, prelude + function + "return " + name + "(KEYS, ARGV);", function);
    }

    /**
     * A script and its SHA-1 digest, computed once, with its Redis Cluster variant: the same script publishing its
     * wake-ups with {@code SPUBLISH} (sharded pub/sub, on the node of the channel's slot) instead of
     * {@code PUBLISH} (broadcast to every node of the cluster).
     */
    static final class Script {
        final String name;
        final String source;
        final String sha;
        /** Its logic as a Lua function of the group script ({@link ScriptGroups}); {@code null} if it has none. */
        final String function;
        private final Script sharded;

        Script(String name, String source) {
            this(name, source, null);
        }

        Script(String name, String source, String function) {
            this.name = name;
            this.source = source;
            this.function = function;
            this.sha = sha1Hex(source);
            String shardedSource = source.replace("'publish'", "'spublish'");
            this.sharded = shardedSource.equals(source) ? this : new Script(name, shardedSource,
                    function == null ? null : function.replace("'publish'", "'spublish'"));
        }

        /** This script publishing with {@code SPUBLISH}; itself if it publishes nothing. */
        Script sharded() {
            return sharded;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(40);
            for (byte b : digest) {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }
}
