package io.latchkey.zookeeper.internal;

import io.latchkey.core.Arguments;
import io.latchkey.DistributedSemaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.apache.zookeeper.KeeperException;

/**
 * {@link DistributedSemaphore} on ZooKeeper: see {@link PermitQueue} for the layout. Each permit taken is an
 * ephemeral node of this client's session, so a crashed client's permits return when its session expires.
 * {@link #release(int)} deletes this client's own permit nodes first; releasing more than this client holds adds
 * permits, as {@link java.util.concurrent.Semaphore#release} would.
 */
public final class ZkSemaphore implements DistributedSemaphore {

    private final String name;
    private final PermitQueue queue;
    private final Deque<String> mine;

    /**
     * @param mine this client's permit nodes of this semaphore, shared by every view of the same name
     */
    public ZkSemaphore(ZkSession session, String name, String path, Deque<String> mine) {
        this.name = name;
        this.queue = new PermitQueue(session, path);
        this.mine = mine;
    }

    /** A fresh table of held permits, for the client's per-name map. */
    public static Deque<String> newHeldTable() {
        return new ConcurrentLinkedDeque<>();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void acquire() throws InterruptedException {
        acquire(1);
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        take(permits, Long.MAX_VALUE);
    }

    @Override
    public boolean tryAcquire() {
        try {
            return tryAcquire(1, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException {
        return take(permits, Arguments.waitDeadline(waitTime));
    }

    private boolean take(int permits, long deadlineNanos) throws InterruptedException {
        checkPermits(permits);
        while (true) {
            List<String> ours;
            try {
                ours = queue.enqueue(permits, new byte[0]);
            } catch (KeeperException e) {
                throw queue.session.unavailable("acquire semaphore " + name, e);
            }
            boolean held = false;
            try {
                held = queue.awaitTurn(ours, deadlineNanos);
            } catch (KeeperException e) {
                throw queue.session.unavailable("acquire semaphore " + name, e);
            } finally {
                if (!held) {
                    // interrupted, timed out, failed or our nodes vanished: leave nothing in the queue
                    queue.deleteQuietly(ours);
                }
            }
            if (held) {
                mine.addAll(ours);
                return true;
            }
            if (deadlineNanos != Long.MAX_VALUE && deadlineNanos - System.nanoTime() <= 0) {
                return false;
            }
        }
    }

    @Override
    public void release() {
        release(1);
    }

    @Override
    public void release(int permits) {
        checkPermits(permits);
        List<String> toDelete = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            String n = mine.pollLast();
            if (n == null) {
                break;
            }
            toDelete.add(n);
        }
        queue.delete(toDelete);
        int extra = permits - toDelete.size();
        if (extra > 0) {
            addPermits(extra);
        }
    }

    @Override
    public int availablePermits() {
        return queue.availablePermits(name);
    }

    @Override
    public boolean trySetPermits(int permits) {
        Arguments.notNegative("permits", permits);
        return queue.trySetPermits(name, permits);
    }

    @Override
    public void addPermits(int permits) {
        queue.addPermits(name, permits);
    }

    @Override
    public int drainPermits() {
        for (int attempt = 0; attempt < 3; attempt++) {
            int available = availablePermits();
            if (available == 0) {
                return 0;
            }
            try {
                if (tryAcquire(available, Duration.ZERO)) {
                    return available;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }
        return 0;
    }

    private static void checkPermits(int permits) {
        Arguments.positive("permits", permits);
    }

    @Override
    public String toString() {
        return "ZkSemaphore{name='" + name + "', path=" + queue.path + "}";
    }

}
