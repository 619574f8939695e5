package io.latchkey.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;

/**
 * Expiry of fixed (non-renewed) leases, of lock holds and of leased permits alike: one timer on the watchdog thread for
 * the earliest bound instead of one scheduled task per hold, in the engine and in no backend. At a bound the entry's
 * {@link Entry#leaseRanOut()} marks a hold lost and calls the recipe's server-side clean-up
 * ({@link io.latchkey.core.RemoteLockOps#leaseEnded}, {@link io.latchkey.core.RemoteCountOps#leaseEnded}). A
 * scheduled task per hold cost an allocation-heavy {@code ScheduledFutureTask}, two wrappers and two trips through the executor's queue lock on every lock/unlock cycle; here tracking a hold is an
 * insert into an intrusive heap ({@link Entry#expiryIndex()}) and untracking an O(log n) removal, and the timer is
 * only re-armed when a hold expires earlier than the armed time. The deadlines live here, in an array beside the heap
 * ({@link #deadlines}), not in the holds: only fixed leases have one, and a watchdog hold then carries no field for
 * it.
 *
 * <p>Deadlines are on the scheduler's clock ({@link System#nanoTime()}: the watchdog's schedule runs on real time), computed from the
 * client's {@code TimeSource} at tracking time exactly as the per-hold task's delay was. A hold is marked lost
 * when its deadline has passed; the timer never fires early, so none is marked lost before its bound.
 */
final class FixedLeaseExpiry {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FixedLeaseExpiry.class);

    /** What the heap holds: a lock's {@link Hold} or a leased permit's {@link FixedPermit}. */
    interface Entry {
        /** Position in the heap, -1 when not tracked; written only under the heap's lock. */
        int expiryIndex();

        /** Sets {@link #expiryIndex()}; under the heap's lock. */
        void expiryIndex(int i);

        /** On the timer thread, outside the heap's lock, once: the bound has passed. Must not block. */
        void leaseRanOut();
    }

    private final ReentrantLock lock = new ReentrantLock();
    /** Scheduler: (task, delayNanos) → handle, or {@code null} once shut down. */
    private final BiFunction<Runnable, Long, ScheduledFuture<?>> scheduler;
    private final Runnable fire = this::fire;
    // guarded by lock
    private Entry[] heap = new Entry[8];
    /** {@code deadlines[i]} is when {@code heap[i]}'s lease runs out, on {@link #clock}. */
    private long[] deadlines = new long[8];
    private int size;
    private boolean armed;
    private long armedAt;
    private ScheduledFuture<?> timer;

    /** The clock of {@link #scheduler}'s delays: {@link System#nanoTime()} unless a simulation runs the timers. */
    private final io.latchkey.core.TimeSource clock;

    FixedLeaseExpiry(BiFunction<Runnable, Long, ScheduledFuture<?>> scheduler, io.latchkey.core.TimeSource clock) {
        this.scheduler = scheduler;
        this.clock = clock;
    }

    /** Starts watching {@code h}, whose lease runs out {@code delayNanos} from now. */
    void track(Entry h, long delayNanos) {
        long deadline = clock.nanoTime() + Math.max(0, delayNanos);
        lock.lock();
        try {
            if (h.expiryIndex() >= 0) {
                return;
            }
            if (size > Hold.MAX_EXPIRY_INDEX) {
                throw new IllegalStateException("more than " + Hold.MAX_EXPIRY_INDEX
                        + " locks and permits held with a fixed lease time by one client");
            }
            if (size == heap.length) {
                heap = Arrays.copyOf(heap, size * 2);
                deadlines = Arrays.copyOf(deadlines, size * 2);
            }
            siftUp(size++, h, deadline);
            if (!armed || deadline - armedAt < 0) {
                arm(deadline);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Stops watching {@code h}; the armed timer stays (it re-arms for the next bound, or disarms, when it fires). */
    void untrack(Entry h) {
        if (h.expiryIndex() < 0) {
            return;
        }
        lock.lock();
        try {
            int i = h.expiryIndex();
            if (i < 0) {
                return;
            }
            h.expiryIndex(-1);
            Entry last = heap[--size];
            long lastDeadline = deadlines[size];
            heap[size] = null;
            if (i != size) {
                siftDown(i, last, lastDeadline);
                if (heap[i] == last) {
                    siftUp(i, last, lastDeadline);
                }
            }
            if (size == 0 && heap.length > 64) {
                heap = new Entry[8];
                deadlines = new long[8];
            }
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    void clear() {
        lock.lock();
        try {
            for (int i = 0; i < size; i++) {
                heap[i].expiryIndex(-1);
                heap[i] = null;
            }
            size = 0;
            armed = false;
        } finally {
            lock.unlock();
        }
    }

    /** On the watchdog thread: every entry past its deadline ends; the timer re-arms for the next one. */
    private void fire() {
        List<Entry> expired = null;
        lock.lock();
        try {
            armed = false;
            timer = null;
            long now = clock.nanoTime();
            while (size > 0 && deadlines[0] - now <= 0) {
                Entry h = heap[0];
                untrackTopLocked();
                if (expired == null) {
                    expired = new ArrayList<>();
                }
                expired.add(h);
            }
            if (size > 0) {
                arm(deadlines[0]);
            }
        } finally {
            lock.unlock();
        }
        if (expired != null) {
            for (Entry h : expired) {
                try {
                    h.leaseRanOut();
                } catch (RuntimeException e) {
                    log.warn("the end of a fixed lease ({}) failed", h, e);
                }
            }
        }
    }

    private void untrackTopLocked() {
        Entry top = heap[0];
        top.expiryIndex(-1);
        Entry last = heap[--size];
        long lastDeadline = deadlines[size];
        heap[size] = null;
        if (size > 0) {
            siftDown(0, last, lastDeadline);
        }
    }

    private void arm(long deadline) {
        ScheduledFuture<?> old = timer;
        if (old != null) {
            old.cancel(false);
        }
        timer = scheduler.apply(fire, Math.max(0, deadline - clock.nanoTime()));
        armed = timer != null;
        armedAt = deadline;
    }

    /** Places {@code h} (due at {@code deadline}) at {@code i} or above, moving later parents down. */
    private void siftUp(int i, Entry h, long deadline) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (deadline - deadlines[parent] >= 0) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        place(i, h, deadline);
    }

    /** Places {@code h} (due at {@code deadline}) at {@code i} or below, moving earlier children up. */
    private void siftDown(int i, Entry h, long deadline) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && deadlines[right] - deadlines[child] < 0) {
                child = right;
            }
            if (deadline - deadlines[child] <= 0) {
                break;
            }
            move(child, i);
            i = child;
        }
        place(i, h, deadline);
    }

    private void move(int from, int to) {
        place(to, heap[from], deadlines[from]);
    }

    private void place(int i, Entry h, long deadline) {
        heap[i] = h;
        deadlines[i] = deadline;
        h.expiryIndex(i);
    }
}
