package io.latchkey.redis;

/**
 * Keys of the synchronizers other than the plain lock (read-write lock, fair lock, …): every key of one synchronizer
 * is {@code <namespace>{<namespace + name>}:<kind>:<part>}, so all of them share one cluster hash slot (one script
 * may touch them all) and start with the namespace (ACL key patterns on it cover them). The same rules as
 * {@link LockKeys#counterKeyFor} keep names with braces of their own in one slot.
 */
final class SyncKeys {

    private SyncKeys() {
    }

    /**
     * The common beginning of the synchronizer's keys, ending with its hash tag: append {@code ":" + part} (no
     * braces) for each key.
     */
    static String base(String namespace, String name, String kind) {
        return LockKeys.inSlot(namespace, namespace + name, ":latchkey:" + kind);
    }
}
