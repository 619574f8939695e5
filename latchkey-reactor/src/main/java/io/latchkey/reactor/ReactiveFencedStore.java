package io.latchkey.reactor;

import io.latchkey.FencedStore;
import io.latchkey.LockLease;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * The Project Reactor view of a {@link FencedStore}: every operation a cold {@code Mono} over the store's
 * asynchronous form, sent when subscribed (once per subscription) without blocking a thread. A stale lease signals
 * {@link io.latchkey.StaleLeaseException}; a bad key, value or lease of another lock signals
 * {@link IllegalArgumentException}.
 *
 * <pre>{@code
 * ReactiveFencedStore store = locks.fencedStore("order:42");
 * Mono<Void> sold = locks.lock("order:42").withLock(lease -> store.get("stock")
 *         .map(v -> Integer.parseInt(new String(v, UTF_8)))
 *         .flatMap(n -> store.put(lease, "stock", Integer.toString(n - 1).getBytes(UTF_8))));
 * }</pre>
 */
public final class ReactiveFencedStore {

    private final FencedStore store;

    ReactiveFencedStore(FencedStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /** {@return the wrapped store} */
    public FencedStore store() {
        return store;
    }

    /**
     * {@link FencedStore#getAsync}: the value, or an empty {@code Mono} if the key has none.
     *
     * @param key the key
     * @return a cold {@code Mono} of the value
     */
    public Mono<byte[]> get(String key) {
        return Mono.defer(() -> Mono.fromFuture(store.getAsync(key))).flatMap(Mono::justOrEmpty);
    }

    /**
     * {@link FencedStore#putAsync}.
     *
     * @param lease a lease of the store's lock
     * @param key the key
     * @param value the new value
     * @return a cold {@code Mono} that completes when the write was applied
     */
    public Mono<Void> put(LockLease lease, String key, byte[] value) {
        return Mono.defer(() -> Mono.fromFuture(store.putAsync(lease, key, value)));
    }

    /**
     * {@link FencedStore#compareAndSetAsync}.
     *
     * @param lease a lease of the store's lock
     * @param key the key
     * @param expected the value the key must have, or null for none
     * @param value the new value
     * @return a cold {@code Mono} of whether the value was swapped
     */
    public Mono<Boolean> compareAndSet(LockLease lease, String key, byte[] expected, byte[] value) {
        return Mono.defer(() -> Mono.fromFuture(store.compareAndSetAsync(lease, key, expected, value)));
    }

    /**
     * {@link FencedStore#deleteAsync}.
     *
     * @param lease a lease of the store's lock
     * @param key the key
     * @return a cold {@code Mono} of whether the key had a value
     */
    public Mono<Boolean> delete(LockLease lease, String key) {
        return Mono.defer(() -> Mono.fromFuture(store.deleteAsync(lease, key)));
    }
}
