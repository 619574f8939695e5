package io.latchkey.zookeeper.internal;

/**
 * A waiter's place in a lock's queue, as the engine keeps it between attempts ({@code RemoteLockOps.Attempt#entry}):
 * our sequential node, the session that created it (a node is only ever trusted as ours while that session lives)
 * and its czxid (which identifies this very node and bounds its fencing token from below). Written as
 * {@code <node>@<session hex>@<czxid hex>}; node names never contain {@code @}.
 *
 * @param node our child's name, {@code _c_<uuid>-<kind><sequence>}
 * @param sessionId the session that owns the ephemeral node
 * @param czxid the node's creation zxid
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
