package io.latchkey;

import java.util.concurrent.Callable;
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

    /** {@return the name of the lock this lease holds} */
    String lockName();

    /**
     * {@return the fencing token of this hold} It is strictly greater than the token of every earlier hold of the same
     * lock name, across clients, processes and client restarts. Hand it to the resource you protect so that it can
     * refuse writes from a holder that has since lost the lock.
     */
    long fencingToken();

    /**
     * {@return whether this lease is still held as far as the client knows} That is: not released and not known lost.
     * With a ZooKeeper backend, a lease whose session is suspended (connection lost, session not yet expired) reports
     * {@code false} until the connection is re-established.
     */
    boolean isValid();

    /**
     * Registers a listener that runs once if this lease is lost (never if it is released first). A listener
     * registered after the loss runs at once on the calling thread. Listeners run on a Latchkey thread, must not
     * block, and must not throw.
     *
     * @param listener the action to run on loss; not null
     */
    void onLost(Runnable listener);

    /**
     * Unregisters a listener given to {@link #onLost} (the same instance) that has not run; does nothing otherwise.
     * {@link #runWhileValid} removes its own listener this way when its task returns, so that a long-held lease
     * that runs many tasks does not collect one listener per task.
     *
     * @param listener the listener to remove, the instance given to {@link #onLost}
     */
    default void removeOnLost(Runnable listener) {
        // a lease that keeps no removable listeners: they are dropped with the lease
    }

    /**
     * Releases the lock. Idempotent for an already released lease.
     *
     * @throws LockLostException if the lock had been lost before this call; the remote state is cleaned up anyway
     * @throws LockUnavailableException if the backend could not be reached; the lease then expires on the server
     *         (it is no longer renewed)
     */
    void release();

    /**
     * Releases the lock without blocking.
     *
     * @return a future that completes when the lock is released, or fails with what {@link #release()} would throw
     */
    CompletableFuture<Void> releaseAsync();

    /**
     * Runs {@code task} on the calling thread while this lease is valid, and interrupts the calling thread the moment
     * the lease is lost, so that work protected by a lock stops when the lock stops protecting it.
     *
     * <pre>{@code
     * try (LockLease lease = lock.acquire()) {
     *     lease.runWhileValid(() -> {
     *         for (Batch b : batches) {
     *             b.process();                       // blocking I/O that responds to interruption
     *             store.write(b, lease.fencingToken());
     *         }
     *         return null;
     *     });
     * } catch (LockLostException e) {
     *     // the lease was lost before or while the task ran; the task was interrupted
     * }
     * }</pre>
     *
     * <p>The task runs on the caller's thread (no thread is started). When the client learns that the lease is lost
     * (see the class comment: at most one renewal interval after the server dropped it, or when a paused process
     * resumes) the thread is interrupted; the task should stop at its next interruptible call or
     * {@code Thread.interrupted()} check. Whatever the task then does — throw, or return anyway — this method throws
     * {@link LockLostException} with the task's exception, if any, as its cause, and the interrupt it caused is
     * consumed (it does not reach the caller's next blocking call). An interrupt from anyone else is the task's
     * business: it is not consumed. A task that completes before the loss is noticed returns its result normally.
     * Interruption cannot stop a write that is already on its way: fence writes with {@link #fencingToken()}.
     *
     * <p>This method does not release the lease. Each call registers one loss listener that lives as long as the
     * lease: call it once per lease (or a bounded number of times), not once per item in an endless loop.
     *
     * <h4>Structured concurrency (JDK 21+)</h4>
     * The interrupt reaches only the calling thread. To stop subtasks too, open a {@code StructuredTaskScope}
     * inside the task: the interrupt makes the owner's {@code scope.join()} throw {@code InterruptedException},
     * and leaving the try-with-resources block shuts the scope down, which interrupts every unfinished subtask
     * and waits for them.
     * <pre>{@code
     * lease.runWhileValid(() -> {
     *     try (var scope = new StructuredTaskScope.ShutdownOnFailure()) {
     *         var a = scope.fork(() -> copyPartition(0, lease.fencingToken()));
     *         var b = scope.fork(() -> copyPartition(1, lease.fencingToken()));
     *         scope.join().throwIfFailed();          // interrupted here when the lease is lost
     *         return a.get() + b.get();
     *     }                                          // close(): subtasks interrupted and joined
     * });
     * }</pre>
     * The reverse nesting works as well: a subtask forked in a scope may call {@code runWhileValid} on a lease
     * that it owns; its interruption is then reported to the scope as a {@link LockLostException} failure.
     *
     * @param <T> the type of the task's result
     * @param task the work to run on the calling thread; not null
     * @return what {@code task} returned, if it completed before the loss was noticed
     * @throws LockLostException if the lease was not valid when called (the task does not run), or was lost while
     *         the task ran
     * @throws Exception what {@code task} threw while the lease was valid
     */
    default <T> T runWhileValid(Callable<T> task) throws Exception {
        return WhileValid.run("the lease of lock", lockName(), this::isValid, this::onLost, this::removeOnLost, task);
    }

    /** Same as {@link #release()}, for try-with-resources. */
    @Override
    void close();
}
