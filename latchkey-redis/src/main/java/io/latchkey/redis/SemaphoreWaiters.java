package io.latchkey.redis;

import io.latchkey.core.AcquireRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * The threads of one client waiting on one semaphore name. Only the head of the queue waits at the server (one
 * remote waiter per name per client, instead of every thread retrying on every release message); the others wait
 * locally until the head leaves or a release of this client hands them its permits directly, which costs no
 * round trip (permits are not owned, so nothing at the server changes: the count would go up and straight down).
 * At most {@link #MAX_LOCAL_HAND_OFFS} hand-offs in a row; the next release goes to the server, so that other
 * clients' waiters get their turn.
 *
 * <p>{@link #lock} guards the queue, each waiter's state and the hand-off streak, and is held for a few field
 * updates only: never while calling the server or completing a future.
 */
final class SemaphoreWaiters {

    /** Consecutive local hand-offs before a release must go to the server (as the lock engine's). */
    static final int MAX_LOCAL_HAND_OFFS = 16;

    /** Waits at the server for {@code permits}: true when taken, false when the deadline passed first. */
    @FunctionalInterface
    interface RemoteTake {
        boolean take(int permits, long deadlineNanos) throws InterruptedException;
    }

    private static final int WAITING = 0;
    private static final int HEAD = 1;
    private static final int HANDED = 2;

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>(); // guarded by lock; the head (if any) is first
    private int streak; // guarded by lock

    private static final class Waiter {
        final int permits;
        /** Completes when the state leaves WAITING (outside the lock): the thread may go on. */
        final CompletableFuture<Void> decided = new CompletableFuture<>();
        int state; // guarded by lock

        Waiter(int permits) {
            this.permits = permits;
        }
    }

    /**
     * Takes {@code permits}, from a local hand-off or (as head) at the server. Returns false when the deadline
     * passed first; then nothing is taken. An interrupted caller holds nothing: permits handed to it go to
     * {@code giveBack}.
     *
     * @param deadlineNanos on {@link System#nanoTime()}; {@link AcquireRequest#NO_DEADLINE} to wait forever
     */
    boolean take(int permits, long deadlineNanos, RemoteTake remote, IntConsumer giveBack)
            throws InterruptedException {
        Waiter w = new Waiter(permits);
        boolean head;
        lock.lock();
        try {
            head = queue.isEmpty();
            w.state = head ? HEAD : WAITING;
            queue.addLast(w);
        } finally {
            lock.unlock();
        }
        if (!head) {
            if (!awaitTurn(w, deadlineNanos, giveBack)) {
                // Gave up locally: one last attempt at the server, as a timed acquire alone would have made.
                return remote.take(permits, deadlineNanos);
            }
            if (stateOf(w) == HANDED) {
                return true;
            }
        }
        try {
            return remote.take(permits, deadlineNanos);
        } finally {
            leaveHead(w);
        }
    }

    /**
     * Hands {@code permits} to local waiters in arrival order, as far as they fit (stopping at the first that does
     * not), unless the streak of hand-offs is used up. Returns the permits left over, for the server.
     */
    int handOff(int permits) {
        List<Waiter> handed = null;
        lock.lock();
        try {
            if (streak >= MAX_LOCAL_HAND_OFFS) {
                streak = 0;
                return permits;
            }
            Iterator<Waiter> it = queue.iterator();
            while (permits > 0 && it.hasNext()) {
                Waiter x = it.next();
                if (x.state != WAITING) {
                    continue;
                }
                if (x.permits > permits) {
                    break;
                }
                it.remove();
                x.state = HANDED;
                permits -= x.permits;
                if (handed == null) {
                    handed = new ArrayList<>(2);
                }
                handed.add(x);
            }
            streak = handed == null ? 0 : streak + 1;
        } finally {
            lock.unlock();
        }
        if (handed != null) {
            handed.forEach(x -> x.decided.complete(null));
        }
        return permits;
    }

    /**
     * Waits until {@code w} is handed permits or becomes head: true. False when the deadline passed first and
     * {@code w} left the queue undecided.
     */
    private boolean awaitTurn(Waiter w, long deadlineNanos, IntConsumer giveBack) throws InterruptedException {
        try {
            if (deadlineNanos == AcquireRequest.NO_DEADLINE) {
                w.decided.get();
            } else {
                w.decided.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            return true;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause()); // never completed exceptionally
        } catch (TimeoutException e) {
            if (leaveUndecided(w)) {
                return false;
            }
            if (stateOf(w) == HEAD) {
                leaveHead(w); // its deadline has passed: it will not wait at the server
                return false;
            }
            return true; // handed permits just as the wait ran out: keep them
        } catch (InterruptedException e) {
            if (!leaveUndecided(w)) {
                if (stateOf(w) == HANDED) {
                    giveBack.accept(w.permits);
                } else {
                    leaveHead(w);
                }
            }
            throw e;
        }
    }

    private boolean leaveUndecided(Waiter w) {
        lock.lock();
        try {
            return w.state == WAITING && queue.remove(w);
        } finally {
            lock.unlock();
        }
    }

    private int stateOf(Waiter w) {
        lock.lock();
        try {
            return w.state;
        } finally {
            lock.unlock();
        }
    }

    /** The head is done (however it ended): the next waiter becomes head and goes to the server. */
    private void leaveHead(Waiter w) {
        Waiter next;
        lock.lock();
        try {
            queue.remove(w);
            next = queue.peekFirst();
            if (next != null) {
                next.state = HEAD;
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            next.decided.complete(null);
        }
    }

    /** Local waiters (the head included), for tests and diagnostics. */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }
}
