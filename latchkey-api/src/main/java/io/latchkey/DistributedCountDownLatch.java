package io.latchkey;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A count-down latch shared by every client of the same backend and namespace that uses the same name, shaped like
 * {@link java.util.concurrent.CountDownLatch}, with {@link #trySetCount} to arm it (and arm it again once it has
 * opened).
 *
 * <pre>{@code
 * DistributedCountDownLatch ready = client.countDownLatch("shards-loaded");
 * ready.trySetCount(3);                       // by the coordinator
 * ...
 * ready.countDown();                          // by each of three workers, in any process
 * ...
 * if (!ready.await(Duration.ofMinutes(5))) {  // by anyone
 *     throw new IllegalStateException("only " + (3 - ready.getCount()) + " of 3 shards loaded");
 * }
 * }</pre>
 *
 * <h2>The count</h2>
 * A latch is open (count zero) until {@link #trySetCount} arms it; each {@link #countDown} lowers the count by one,
 * and at zero the latch opens again and wakes every waiter. Count-downs are not owned: any client may count down,
 * and a count-down on an open latch does nothing. Nothing is leased: a process that was to count down and crashed
 * leaves the count where it was; waiters then wait until their timeout (use {@link #await(Duration)}), and another
 * process may count down for it. The backends keep no state for an open latch (the key, znode or row goes at zero).
 *
 * <h2>Waiting</h2>
 * A waiter is woken by the backend when the count reaches zero (Redis pub/sub, ZooKeeper watches, etcd watches),
 * with a bounded re-check as a fallback; the threads of one client waiting on one latch share one look at the server.
 * A latch that opens and is armed again before a waiter looked may be seen armed by that waiter: as with any
 * distributed latch, re-arming while waiters wait for the previous round is a race to avoid.
 *
 * <h2>Interruption and timeouts</h2>
 * {@link #await()} and {@link #await(Duration)} throw {@link InterruptedException} when the waiting thread is
 * interrupted (the flag is then cleared). A timeout of zero or less looks once; a positive one always gets the answer
 * of its first look, even when that round trip is slower than the timeout. Every call that talks to the server
 * answers within the client's {@link ClientOptions#operationTimeout() operation timeout} per round trip or throws
 * {@link LockUnavailableException}.
 *
 * <h2>Memory effects</h2>
 * Within one client, actions before a {@code countDown} happen-before actions after an {@code await} that returned
 * because that count-down opened the latch. Across clients the backend's order is the only order: an {@code await}
 * that returned {@code true} saw the count-down that reached zero.
 */
public interface DistributedCountDownLatch {

    /**
     * The latch's name.
     *
     * @return the name given to {@link LockClient#countDownLatch}
     */
    String name();

    /**
     * Arms the latch with {@code count} if it is open (count zero); of clients racing to arm it, one wins.
     *
     * @param count the count, at least 1
     * @return whether this call armed it ({@code false}: it was armed already)
     * @throws IllegalArgumentException if {@code count < 1}
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    boolean trySetCount(long count);

    /**
     * Lowers the count by one; at zero the latch opens and every waiter is woken. Does nothing on an open latch.
     *
     * @throws LockUnavailableException if the server does not answer within the operation timeout; the count may or
     *         may not have been lowered
     */
    void countDown();

    /**
     * The current count: a snapshot.
     *
     * @return the count; 0 for an open (or never armed) latch
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    long getCount();

    /**
     * {@link #await(Duration)} without blocking a thread.
     *
     * <p>Asynchronous: no thread waits. The future completes on a Latchkey thread (use the {@code *Async} stages with
     * an executor of your own for work that blocks). Cancelling it before it completes withdraws the
     * waiter. It fails with {@link LockUnavailableException} if the server
     * does not answer within the operation timeout. Offered by every backend of this project
     * (all run their latches on Latchkey's engine); a backend that does not throws {@link UnsupportedOperationException}.
     *
     * @param timeout how long to wait; zero or negative looks once
     * @return a future completing with whether the count reached zero in time
     * @throws UnsupportedOperationException if the backend's latches are not on the engine
     */
    default CompletableFuture<Boolean> awaitAsync(Duration timeout) {
        throw new UnsupportedOperationException("awaitAsync is not offered by " + this);
    }

    /**
     * {@link #countDown()} without blocking a thread.
     *
     * @return a future completing once the count-down reached the server, or failing with
     *         {@link LockUnavailableException}
     * @throws UnsupportedOperationException if the backend's latches are not on the engine
     */
    default CompletableFuture<Void> countDownAsync() {
        throw new UnsupportedOperationException("countDownAsync is not offered by " + this);
    }

    /**
     * Waits until the count is zero; returns at once if it is.
     *
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    void await() throws InterruptedException;

    /**
     * Waits until the count is zero or {@code timeout} passes.
     *
     * @param timeout how long to wait; zero or negative looks once
     * @return whether the count reached zero
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    boolean await(Duration timeout) throws InterruptedException;
}
