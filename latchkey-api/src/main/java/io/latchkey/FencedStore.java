package io.latchkey;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Keys and values kept in the lock's own server, whose writes are applied only while the writer's lease is the
 * lock's current hold. Obtained from {@link LockClient#fencedStore(String)}.
 *
 * <pre>{@code
 * FencedStore store = client.fencedStore("order:42");           // guarded by the lock "order:42"
 * try (LockLease lease = client.lock("order:42").acquire()) {
 *     int stock = store.get("stock").map(FencedStore::toInt).orElse(0);
 *     store.put(lease, "stock", FencedStore.fromInt(stock - 1));  // StaleLeaseException if we lost the lock
 * }
 * }</pre>
 *
 * <h2>Fencing</h2>
 * Every write carries a {@link LockLease} of the store's lock (or a {@link Leadership} of an election whose lock is
 * the store's lock, see {@link #electionLockName(String)}). The server checks that this lease is still the lock's
 * current hold and applies the write <em>in the same atomic step</em> (a Redis script, a ZooKeeper {@code multi}
 * with a {@code check}, an etcd transaction, one SQL transaction, the file directory's lock): a holder that was
 * paused past its lease, lost its lock or released it gets {@link StaleLeaseException} and changes nothing, even if
 * it still believes it holds the lock. A lease of another lock is an {@link IllegalArgumentException}.
 *
 * <h2>Data</h2>
 * Keys are 1 to {@value #MAX_KEY_LENGTH} characters without control characters; values are at most
 * {@value #MAX_VALUE_BYTES} bytes (an empty value is a value). The data is the user's: it stays when nobody holds
 * the lock, survives releases, expiries and {@code latchkey unlock}, and is kept apart from the lock's own keys,
 * rows or nodes (it is not listed by {@code latchkey inspect} as a hold). Reads need no lease and see the last
 * applied write. Delete the keys you no longer need.
 *
 * <h2>Errors</h2>
 * Backend unreachable or slower than the client's operation timeout: {@link LockUnavailableException}; whether a
 * write that timed out was applied is then unknown, as for any remote write.
 */
public interface FencedStore {

    /** The longest key, in characters. */
    int MAX_KEY_LENGTH = 256;

    /** The largest value, in bytes. */
    int MAX_VALUE_BYTES = 65_535;

    /** {@return the name of the lock that guards this store} */
    String lockName();

    /**
     * {@return the value of {@code key}, empty if it has none} Needs no lease.
     *
     * @param key the key
     * @throws IllegalArgumentException if the key is invalid, with the reason
     */
    Optional<byte[]> get(String key);

    /**
     * Sets {@code key} to {@code value} if {@code lease} is the lock's current hold.
     *
     * @param lease a lease of this store's lock
     * @param key the key
     * @param value the new value, at most {@value #MAX_VALUE_BYTES} bytes
     * @throws StaleLeaseException if the lease is no longer the current hold; nothing was written
     * @throws IllegalArgumentException if the lease is of another lock, or the key or value is invalid
     */
    void put(LockLease lease, String key, byte[] value);

    /**
     * Sets {@code key} to {@code value} if {@code lease} is the lock's current hold and the key's value equals
     * {@code expected} (byte for byte); {@code expected == null} means: only if the key has no value.
     *
     * @param lease a lease of this store's lock
     * @param key the key
     * @param expected the value the key must have, or null for none
     * @param value the new value
     * @return whether the value was swapped
     * @throws StaleLeaseException if the lease is no longer the current hold; nothing was written
     * @throws IllegalArgumentException if the lease is of another lock, or the key or a value is invalid
     */
    boolean compareAndSet(LockLease lease, String key, byte[] expected, byte[] value);

    /**
     * Removes {@code key} if {@code lease} is the lock's current hold.
     *
     * @param lease a lease of this store's lock
     * @param key the key
     * @return whether the key had a value
     * @throws StaleLeaseException if the lease is no longer the current hold; nothing was deleted
     * @throws IllegalArgumentException if the lease is of another lock or the key is invalid
     */
    boolean delete(LockLease lease, String key);

    /**
     * {@link #put(LockLease, String, byte[])} fenced by a leadership whose election lock is this store's lock.
     *
     * @param leadership a leadership of the election {@code e} with {@code lockName().equals(electionLockName(e))}
     * @param key the key
     * @param value the new value
     */
    void put(Leadership leadership, String key, byte[] value);

    /**
     * {@link #compareAndSet(LockLease, String, byte[], byte[])} fenced by a leadership.
     *
     * @param leadership a leadership whose election lock is this store's lock
     * @param key the key
     * @param expected the value the key must have, or null for none
     * @param value the new value
     * @return whether the value was swapped
     */
    boolean compareAndSet(Leadership leadership, String key, byte[] expected, byte[] value);

    /**
     * {@link #delete(LockLease, String)} fenced by a leadership.
     *
     * @param leadership a leadership whose election lock is this store's lock
     * @param key the key
     * @return whether the key had a value
     */
    boolean delete(Leadership leadership, String key);

    /**
     * {@link #get(String)} without blocking.
     *
     * @param key the key
     * @return a future of the value
     */
    CompletableFuture<Optional<byte[]>> getAsync(String key);

    /**
     * {@link #put(LockLease, String, byte[])} without blocking; the future fails with what it would throw (argument
     * errors are thrown at once).
     *
     * @param lease a lease of this store's lock
     * @param key the key
     * @param value the new value
     * @return a future completed when the write was applied
     */
    CompletableFuture<Void> putAsync(LockLease lease, String key, byte[] value);

    /**
     * {@link #compareAndSet(LockLease, String, byte[], byte[])} without blocking.
     *
     * @param lease a lease of this store's lock
     * @param key the key
     * @param expected the value the key must have, or null for none
     * @param value the new value
     * @return a future of whether the value was swapped
     */
    CompletableFuture<Boolean> compareAndSetAsync(LockLease lease, String key, byte[] expected, byte[] value);

    /**
     * {@link #delete(LockLease, String)} without blocking.
     *
     * @param lease a lease of this store's lock
     * @param key the key
     * @return a future of whether the key had a value
     */
    CompletableFuture<Boolean> deleteAsync(LockLease lease, String key);

    /**
     * {@return the value of {@code key} as UTF-8 text, empty if it has none}
     *
     * @param key the key
     */
    default Optional<String> getString(String key) {
        return get(key).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    /**
     * {@link #put(LockLease, String, byte[])} of {@code value}'s UTF-8 bytes.
     *
     * @param lease a lease of this store's lock
     * @param key the key
     * @param value the new value, not null
     */
    default void putString(LockLease lease, String key, String value) {
        put(lease, key, value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@return the name of the lock of the election {@code election}} The store {@code
     * client.fencedStore(FencedStore.electionLockName("billing"))} accepts the leaderships of election
     * {@code "billing"}.
     *
     * @param election the election's name
     */
    static String electionLockName(String election) {
        return "latchkey.election:" + election;
    }
}
