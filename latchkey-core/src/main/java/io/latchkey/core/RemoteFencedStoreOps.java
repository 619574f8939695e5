package io.latchkey.core;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of {@link io.latchkey.FencedStore}: a backend reads a key and applies a {@link FencedWrite} only
 * if, in the same atomic server step, the lock {@code lockName}'s current hold has the fencing token {@code token}.
 * Tokens are strictly increasing per lock name and never reused, so a token names exactly one hold: "a hold with
 * this token exists" is "this lease is the current hold". Never a read followed by a separate write.
 *
 * <p>Keys and values arrive checked (by {@link AbstractLockClient#fencedStore}'s store); the backend maps keys so
 * that they can never meet the lock's own keys, rows or nodes. Futures fail with
 * {@link io.latchkey.LockUnavailableException} when the server is unreachable.
 */
public interface RemoteFencedStoreOps {

    /**
     * Reads a key.
     *
     * @param lockName the store's lock
     * @param key the key
     * @return a future of its value, empty if none
     */
    CompletableFuture<Optional<byte[]>> get(String lockName, String key);

    /**
     * Applies {@code write} if the lock's current hold has {@code token}, atomically with that check.
     *
     * @param lockName the store's lock
     * @param token the writer's fencing token
     * @param write the write
     * @return a future of what happened
     */
    CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite write);
}
