package io.latchkey.zookeeper.internal;

/**
 * What a granted lock is on the server: our sequential node, the zxid that is its fencing token, and the session
 * that created it (a node is only ever trusted as ours while that session lives).
 *
 * @param lockPath the lock's parent path
 * @param node our child's name, {@code _c_<uuid>-<kind><sequence>}
 * @param czxid the node's creation zxid: identifies this very node (a re-created node has another)
 * @param token the fencing token (see {@link SequentialLockOps})
 * @param sessionId the session that owns the ephemeral node
 * @param alone whether our node was the only child when the lock was granted (see {@link SoloHistory})
 */
public record ZkHold(String lockPath, String node, long czxid, long token, long sessionId, boolean alone) {

    public String path() {
        return lockPath + "/" + node;
    }
}
