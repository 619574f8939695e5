package io.latchkey;

import java.util.concurrent.CompletableFuture;

/**
 * One hold of a {@link DistributedLock}, owned by this object rather than by a thread. A lease can be released
 * from any thread, handed to another task, or held across {@code await}s in asynchronous code.
 *
 * <pre>{@code
 * try (LockLease lease = lock.acquire()) {
 *     storage.write(record, lease.fencingToken());   // the storage rejects tokens lower than the last it saw
 * }
 * }</pre>
 *
 * <h2>Lease and renewal</h2>
 * A lease acquired without a lease time is renewed by the client's watchdog every
 * {@link ClientOptions#renewalInterval()} until it is released; one acquired with a lease time is never renewed
 * and expires on the server when that time has passed.
 *
 * <h2>Lost</h2>
 * A lease is <em>lost</em> when the lock stops being ours while we did not release it: the watchdog found it gone
 * or owned by someone else, the fixed lease ran out, the backend session expired, or someone force-unlocked it.
 * Then {@link #isValid()} turns {@code false}, every {@link #onLost} listener runs once, and {@link #release()}
 * throws {@link LockLostException}. Loss is detected by the client; between the moment the server drops the lock
 * and the moment the client notices (at most one renewal interval, or the lease time for fixed leases) the lease
 * still reports valid, which is why writes to shared resources should carry the {@link #fencingToken()}.
 *
 * <h2>Memory effects</h2>
 * Actions before a {@link #release()} happen-before the actions of the next holder after its acquire returns,
 * whether that holder is in this JVM or another (through the backend's own ordering).
 */
public interface LockLease extends AutoCloseable {

    /** The name of the lock this lease holds. */
    String lockName();

    /**
     * The fencing token of this hold: a number that is strictly greater than the token of every earlier hold of
     * the same lock name, across clients, processes and client restarts. Hand it to the resource you protect so
     * that it can refuse writes from a holder that has since lost the lock.
     */
    long fencingToken();

    /**
     * Whether this lease is still held as far as the client knows: not released and not known lost. With a
     * ZooKeeper backend, a lease whose session is suspended (connection lost, session not yet expired) reports
     * {@code false} until the connection is re-established.
     */
    boolean isValid();

    /**
     * Registers a listener that runs once if this lease is lost (never if it is released first). A listener
     * registered after the loss runs at once on the calling thread. Listeners run on a Latchkey thread, must not
     * block, and must not throw.
     */
    void onLost(Runnable listener);

    /**
     * Releases the lock. Idempotent for an already released lease.
     *
     * @throws LockLostException if the lock had been lost before this call; the remote state is cleaned up anyway
     * @throws LockUnavailableException if the backend could not be reached; the lease then expires on the server
     *         (it is no longer renewed)
     */
    void release();

    /** Releases the lock without blocking; the future fails as {@link #release()} would throw. */
    CompletableFuture<Void> releaseAsync();

    /** Same as {@link #release()}, for try-with-resources. */
    @Override
    void close();
}
