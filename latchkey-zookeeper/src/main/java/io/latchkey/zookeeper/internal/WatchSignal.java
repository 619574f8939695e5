package io.latchkey.zookeeper.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * A watcher that one waiting thread sleeps on: set by any event on the nodes it was registered with, re-armed
 * before each re-read so that an event between the read and the sleep is not missed.
 */
final class WatchSignal implements Watcher {

    /** A bounded re-check in case a watch was lost across a reconnect. */
    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean fired;

    @Override
    public void process(WatchedEvent event) {
        lock.lock();
        try {
            fired = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Forgets earlier events: call before reading the nodes this watcher is then registered with. */
    void rearm() {
        lock.lock();
        try {
            fired = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sleeps until an event since {@link #rearm()}, the re-check interval, or the deadline.
     *
     * @param deadlineNanos {@link System#nanoTime()} deadline, or {@link Long#MAX_VALUE}
     * @return {@code false} if the deadline passed first
     */
    boolean awaitEvent(long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (!fired) {
                long left = deadlineNanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                if (changed.awaitNanos(Math.min(left, RECHECK_NANOS)) <= 0) {
                    fired = true;
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
