package io.latchkey.zookeeper.internal;

/**
 * A granted lock's or permit's node, the {@code Grant}'s backend state; trusted as ours only while the session that
 * created it lives.
 *
 * @param lockPath the lock's parent path
 * @param czxid the node's creation zxid: identifies this very node (a re-created node has another)
 * @param token the fencing token (see {@link ZkLockOps})
 * @param alone whether our node was the only child when the lock was granted (see {@link SoloHistory})
 */
public record ZkGrantState(String lockPath, String node, long czxid, long token, long sessionId, boolean alone) {

    public String path() {
        return lockPath + "/" + node;
    }
}
