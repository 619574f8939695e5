package io.latchkey.redis;

/**
 * How every Redis primitive issues fencing tokens: a <em>hybrid</em> token {@code max(last + 1, now)} taken inside the
 * acquire (or hand-off) script, where {@code now} is the server's clock ({@code TIME}) in microseconds and
 * {@code last} the latest token issued in the same <em>token key</em>: one key per namespace on a standalone server
 * or Sentinel, one per namespace and cluster hash slot on a Redis Cluster (at most 16,384), never one per name. The
 * script stores the new token back in the token key (no expiry) and with the hold itself, so the hold is identified
 * by owner and token, and releasing it leaves nothing of its name behind.
 *
 * <p>Why the tokens of a name strictly increase (the argument and its assumptions are in {@code docs/fencing.md}):
 * while the token key survives, each token is at least {@code last + 1} and becomes the next {@code last}, whatever
 * the clock does; when the key is lost (a restart without persistence, a failover to a replica that had not
 * received it) the next token is the new server's {@code now}, which is greater than every earlier token as long as
 * the new server's clock is ahead of the last token, i.e. the outage lasted longer than the clock skew between the
 * servers (tokens only run ahead of the clock when more than one is issued per microsecond per token key).
 */
final class FencingTokens {

    /** The token key's suffix: {@code <namespace>latchkey:tokens}, or {@code <namespace>{<slot tag>}:latchkey:tokens}. */
    static final String KEY_SUFFIX = "latchkey:tokens";

    /**
     * Lua: {@code local us, ms = clock()}, the server's {@code TIME} in microseconds and in milliseconds, read and
     * turned into numbers once per script call: the members of a group ({@link ScriptGroups}) share it. Every script
     * that uses {@link #NEXT} or a time of its own starts with it.
     */
    static final String CLOCK = "local clock_us, clock_ms; local function clock() if not clock_us then "
            + "local t = redis.call('time'); local s, u = tonumber(t[1]), tonumber(t[2]); "
            + "clock_us, clock_ms = s * 1000000 + u, s * 1000 + math.floor(u / 1000); end; "
            + "return clock_us, clock_ms; end; ";

    /**
     * Lua: {@code local token, text = next_token(tokenKey)}. The token as a number (exact: below 2<sup>53</sup>
     * until the year 2255) and as the decimal text to store and compare ({@code string.format}, since Lua's own
     * number-to-string conversion would print 14 significant digits). Needs {@link #CLOCK}. The token key is read
     * once per script call and written back at once, or, in a group ({@code grouped = true}), once at its end by
     * {@code store_tokens()}: the group's tokens of one key are {@code last + 1} from the previous member's, never
     * read back in between.
     */
    static final String NEXT = "local issued, grouped = {}, false; "
            + "local function next_token(k) "
            + "local token = clock(); "
            + "local last = issued[k] or tonumber(redis.call('get', k) or 0); "
            + "if last and last >= token then token = last + 1; end; "
            + "issued[k] = token; "
            + "local s = string.format('%.0f', token); "
            + "if not grouped then redis.call('set', k, s); end; "
            + "return token, s; "
            + "end; "
            + "local function store_tokens() "
            + "for k, v in pairs(issued) do redis.call('set', k, string.format('%.0f', v)); end; end; ";

    private FencingTokens() {
    }

    /**
     * The token key for a primitive whose keys are in {@code keyInSlot}'s hash slot: per namespace when not on a
     * cluster, per namespace and slot on a cluster (starting with the namespace unless it has braces of its own,
     * which could open the hash tag early).
     */
    static String key(String namespace, String keyInSlot, boolean cluster) {
        if (!cluster) {
            // One instance per namespace, not one per name's keys (they are kept with every held lock).
            return (namespace + KEY_SUFFIX).intern();
        }
        String prefix = namespace.indexOf('{') < 0 && namespace.indexOf('}') < 0 ? namespace : "";
        return prefix + "{" + LockKeys.slotTag(LockKeys.slot(keyInSlot)) + "}:" + KEY_SUFFIX;
    }
}
