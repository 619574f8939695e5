package io.latchkey.etcd.internal;

/**
 * A granted lock's or leased permit's key: the {@code Grant}'s backend state.
 *
 * @param key the owner's key under the lock's prefix
 * @param createRevision the key's create revision, also the fencing token
 * @param leaseId the etcd lease the key is attached to
 * @param ownLease whether that lease belongs to this grant alone (a fixed lease), to be revoked with it
 */
record EtcdGrantState(String key, long createRevision, long leaseId, boolean ownLease) {
}
