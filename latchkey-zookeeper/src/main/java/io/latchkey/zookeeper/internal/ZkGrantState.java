package io.latchkey.zookeeper.internal;

/**
 * What a granted lock or permit is on the server, kept as the {@code Grant}'s backend state: our sequential node,
 * the zxid that is its fencing token, and the session that created it (a node is only ever trusted as ours while
 * that session lives).
 *
 * @param lockPath the lock's parent path
 * @param node our child's name, {@code _c_<uuid>-<kind><sequence>}
 * @param czxid the node's creation zxid: identifies this very node (a re-created node has another)
 * @param token the fencing token (see {@link ZkLockOps})
 * @param sessionId the session that owns the ephemeral node
 * @param alone whether our node was the only child when the lock was granted (see {@link SoloHistory})
 */
public record ZkGrantState(String lockPath, String node, long czxid, long token, long sessionId, boolean alone) {

    public String path() {
        return lockPath + "/" + node;
    }
}
