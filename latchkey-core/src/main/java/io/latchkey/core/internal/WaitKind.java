package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;

/**
 * What differs between the primitives that wait in a {@link NameState}: a lock ({@link LockKind}) or a counted
 * resource ({@link CountKinds}: a semaphore's permits, a permit-expirable semaphore's permits, a latch reaching zero).
 * The machine asks it how to make one attempt for a waiter, what a success gives the waiter, and how to give back what
 * an attempt took for a waiter that had left; everything else (the queue, the one attempt in flight, re-checks, the
 * subscription, deadlines, cancels, close) is the machine's, the same for every kind. A policy: stateless (one
 * instance per kind), it returns what the machine asks and writes none of the machine's state.
 *
 * <p>What an attempt took is a {@link Grant}: a lock's, a leased permit's, or {@link #TOOK} for a success that has no
 * grant of its own (a semaphore's permits, a latch at zero). What the waiter gets is {@code R}.
 *
 * @param <R> what a waiter's future completes with: a {@link Hold}, a permit's {@link Grant}, {@code Boolean.TRUE}
 */
interface WaitKind<R> {

    /** What a success took when it has no grant of its own: a semaphore's permits, a latch found at zero. */
    Grant TOOK = new Grant("(counted)", "(counted)", 0, 0, false, 0, null);

    /**
     * One attempt's answer: what it took ({@code null}: nothing, the resource is busy), the re-check delay when busy,
     * and the waiter's place in the server's queue (fair locks), if any.
     */
    record Look(Grant taken, long recheckNanos, String entry) {
    }

    /** One attempt for {@code w} (the waiter at the backend); {@code entry} is its place in the server's queue. */
    CompletableFuture<Look> attempt(NameState s, Waiter<R> w, String entry);

    /** The backend's subscription to the name's changes, pushing to {@code changed}. */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(NameState s, Runnable changed);

    /**
     * Under the machine's lock: what the waiter's future completes with for a success that took {@code taken} (a
     * lock registers its {@link Hold} in the name's holders here).
     */
    R grantedLocked(NameState s, Waiter<R> w, Grant taken);

    /** Outside the lock, before the waiter's future completes: what a success arms (a hold's renewal, the event). */
    default void granted(NameState s, Waiter<R> w, R result) {
    }

    /** Gives back what an attempt took for a waiter that no longer wants it; a failure is logged, never thrown. */
    CompletableFuture<?> giveBack(NameState s, Waiter<?> w, Grant taken);

    /**
     * The attempt of {@code w} got no answer (it failed) and {@code w} makes no further attempt: undo what it may have
     * made at the server, by its attempt id ({@link AttemptCleanUps}). Never a failure: the clean-up retries on its own.
     */
    void cleanUp(NameState s, Waiter<?> w);

    /** A wait ran out (the event and its log line, for locks). */
    default void timedOut(NameState s, Waiter<?> w) {
    }

    /** Whether one success serves every waiter of the name, not only the one it was made for (a latch that opened). */
    default boolean servesAll() {
        return false;
    }
}
