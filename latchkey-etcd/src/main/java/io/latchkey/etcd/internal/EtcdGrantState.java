package io.latchkey.etcd.internal;

/**
 * The {@code Grant}'s backend state: a held lock's or permit's key, its create revision, and the etcd lease it is on
 * ({@code ownLease}: the grant's alone, a fixed lease, revoked with it).
 */
record EtcdGrantState(String key, long createRevision, long leaseId, boolean ownLease) {
}
