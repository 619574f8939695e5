package io.latchkey.redis;

import java.nio.charset.StandardCharsets;

/**
 * The Redis keys and channel of one lock, computed once per name.
 *
 * <ul>
 *   <li>{@link #lockKey}: {@code namespace + name}, a hash {@code owner -> hold count} with a PEXPIRE, exactly as
 *   Redisson's {@code RLock} keeps it, so that both exclude each other.</li>
 *   <li>{@link #channel}: {@code redisson_lock__channel:{key}} (or {@code redisson_lock__channel:key} if the key
 *   already contains a brace), the channel Redisson's waiters listen on. On a Redis Cluster the channel is a key of
 *   the release script and must share the lock key's slot: for the rare names where Redisson's rule breaks that (a
 *   brace without a valid hash tag), {@code redisson_lock__channel:{<tag of the lock key's slot>}:key} instead
 *   (Redisson itself cannot release such names on a cluster: its script would fail with CROSSSLOT).</li>
 *   <li>{@link #tokenKey}: where the namespace's (on a cluster: the namespace's and slot's) latest fencing token is
 *   kept ({@link FencingTokens}); the hold's own token is the field {@link #TOKEN_FIELD} of the lock hash, so it
 *   expires and is deleted with the hold.</li>
 * </ul>
 */
final class LockKeys {

    static final String CHANNEL_PREFIX = "redisson_lock__channel";
    /**
     * The lock hash's field holding a Latchkey hold's fencing token next to its {@code owner -> count} field. Never
     * a Redisson owner ({@code <uuid>:<thread>}) nor a Latchkey one; Redisson's scripts only touch their own field,
     * {@code EXISTS} and {@code DEL} of the hash, so they exclude, release and wait on such a hash as on their own.
     */
    static final String TOKEN_FIELD = "latchkey:token";

    final String name;
    final String lockKey;
    final String tokenKey;
    final String channel;
    /** {lockKey, tokenKey}: the KEYS of the acquire and hand-off scripts. */
    final String[] acquireKeys;
    /** {lockKey, channel}: the KEYS of the release and force-unlock scripts. */
    final String[] lockAndChannel;

    /** @param cluster whether the keys are for a Redis Cluster (the channel must then be in the lock's slot) */
    LockKeys(String namespace, String name, boolean cluster) {
        this.name = name;
        this.lockKey = namespace + name;
        this.tokenKey = FencingTokens.key(namespace, lockKey, cluster);
        this.channel = cluster ? clusterChannelFor(lockKey) : channelFor(lockKey);
        this.acquireKeys = new String[] {lockKey, tokenKey};
        this.lockAndChannel = new String[] {lockKey, channel};
    }

    /** Redisson's rule ({@code RedissonObject.prefixName}): wrap the key in braces unless it has one already. */
    static String channelFor(String lockKey) {
        return lockKey.indexOf('{') >= 0 ? CHANNEL_PREFIX + ":" + lockKey : CHANNEL_PREFIX + ":{" + lockKey + "}";
    }

    /** {@link #channelFor}, unless that channel is in another hash slot than the lock key: then one in its slot. */
    static String clusterChannelFor(String lockKey) {
        String channel = channelFor(lockKey);
        int slot = slot(lockKey);
        return slot(channel) == slot ? channel : CHANNEL_PREFIX + ":{" + slotTag(slot) + "}:" + lockKey;
    }

    /**
     * {@code key} followed by {@code suffix} (no braces), in {@code key}'s hash slot and starting with the namespace
     * where possible (so that ACL key patterns on the namespace cover it). If the key has a hash tag, appending keeps
     * it. Otherwise the whole key is hashed, and wrapping it in braces makes it the tag, unless it contains a closing
     * brace that would end the tag early; then a short tag with the same CRC16 slot, the suffix, {@code ":"} and the
     * key.
     */
    static String inSlot(String namespace, String key, String suffix) {
        if (hashTag(key) != null) {
            return key + suffix;
        }
        // A namespace with braces of its own could open the tag early: then the key starts with the tag.
        String prefix = namespace.indexOf('{') < 0 && namespace.indexOf('}') < 0 ? namespace : "";
        return key.indexOf('}') < 0 ? prefix + "{" + key + "}" + suffix
                : prefix + "{" + slotTag(slot(key)) + "}" + suffix + ":" + key;
    }

    /** The part of {@code key} Redis Cluster hashes if it has a non-empty {@code {…}} tag, else {@code null}. */
    static String hashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return null;
        }
        int close = key.indexOf('}', open + 1);
        if (close < 0 || close == open + 1) {
            return null;
        }
        return key.substring(open + 1, close);
    }

    /** The Redis Cluster slot of {@code key}. */
    static int slot(String key) {
        String tag = hashTag(key);
        return crc16((tag != null ? tag : key).getBytes(StandardCharsets.UTF_8)) & 16383;
    }

    /** CRC16-CCITT (XMODEM), the checksum Redis Cluster maps keys to slots with. */
    private static int crc16(byte[] bytes) {
        int crc = 0;
        for (byte b : bytes) {
            crc ^= (b & 0xFF) << 8;
            for (int j = 0; j < 8; j++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xFFFF;
    }

    /**
     * A short decimal string that hashes to {@code slot}; the table is built on first use, which only happens for
     * keys that cannot be wrapped in a hash tag (they contain a '}' but no valid tag).
     */
    static String slotTag(int slot) {
        return SlotTags.TAGS[slot];
    }

    private static final class SlotTags {
        static final String[] TAGS = new String[16384];

        static {
            int missing = TAGS.length;
            for (int i = 0; missing > 0; i++) {
                String candidate = Integer.toString(i);
                int slot = crc16(candidate.getBytes(StandardCharsets.US_ASCII)) & 16383;
                if (TAGS[slot] == null) {
                    TAGS[slot] = candidate;
                    missing--;
                }
            }
        }
    }

    @Override
    public String toString() {
        return lockKey;
    }
}
