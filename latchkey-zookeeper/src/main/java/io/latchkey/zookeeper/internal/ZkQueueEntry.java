package io.latchkey.zookeeper.internal;

/**
 * A waiter's place in a lock's queue between attempts ({@code RemoteLockOps.Attempt#entry}), written as
 * {@code <node>@<session hex>@<czxid hex>} (node names never contain {@code @}): our node is trusted as ours only
 * while the session that created it lives.
 */
record ZkQueueEntry(String node, long sessionId, long czxid) {

    String format() {
        return node + '@' + Long.toHexString(sessionId) + '@' + Long.toHexString(czxid);
    }

    /** The entry {@link #format()} wrote; {@code null} for anything else (never ours: the attempt queues afresh). */
    static ZkQueueEntry parse(String entry) {
        int second = entry.lastIndexOf('@');
        int first = second > 0 ? entry.lastIndexOf('@', second - 1) : -1;
        if (first <= 0) {
            return null;
        }
        try {
            return new ZkQueueEntry(entry.substring(0, first),
                    Long.parseUnsignedLong(entry.substring(first + 1, second), 16),
                    Long.parseUnsignedLong(entry.substring(second + 1), 16));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
