package io.latchkey.zookeeper.internal;

import io.latchkey.core.Arguments;
import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * {@link PermitExpirableSemaphore} on ZooKeeper: the {@link PermitQueue} layout, one node per permit; the permit id
 * is the node's name. ZooKeeper has no expiry for single nodes, so the lease is enforced by the client that took
 * the permit (it deletes the node when the lease is over) and, if that client dies, by its session's expiry.
 */
public final class ZkPermitExpirableSemaphore implements PermitExpirableSemaphore {

    private final String name;
    private final PermitQueue queue;
    private final Map<String, ScheduledFuture<?>> expiries;

    /**
     * @param expiries this client's lease timers by permit id, shared by every view of the same name
     */
    public ZkPermitExpirableSemaphore(ZkSession session, String name, String path,
                                      Map<String, ScheduledFuture<?>> expiries) {
        this.name = name;
        this.queue = new PermitQueue(session, path);
        this.expiries = expiries;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String acquire(Duration leaseTime) throws InterruptedException {
        return take(leaseTime, Long.MAX_VALUE).orElseThrow();
    }

    @Override
    public Optional<String> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return take(leaseTime, Arguments.waitDeadline(waitTime));
    }

    private Optional<String> take(Duration leaseTime, long deadlineNanos) throws InterruptedException {
        checkLease(leaseTime);
        while (true) {
            List<String> ours;
            boolean held = false;
            try {
                ours = queue.enqueue(1, PermitQueue.bytes(leaseTime.toMillis()));
            } catch (KeeperException e) {
                throw queue.session.unavailable("acquire permit of " + name, e);
            }
            try {
                held = queue.awaitTurn(ours, deadlineNanos);
            } catch (KeeperException e) {
                throw queue.session.unavailable("acquire permit of " + name, e);
            } finally {
                if (!held) {
                    queue.deleteQuietly(ours);
                }
            }
            if (held) {
                String id = ours.get(0);
                arm(id, leaseTime);
                return Optional.of(id);
            }
            if (deadlineNanos != Long.MAX_VALUE && deadlineNanos - System.nanoTime() <= 0) {
                return Optional.empty();
            }
        }
    }

    private void arm(String id, Duration leaseTime) {
        ScheduledFuture<?> timer = queue.session.scheduler().schedule(() -> {
            expiries.remove(id);
            // never blocks the scheduler thread; retried until the server answers
            queue.deleteInBackground(id);
        }, leaseTime.toMillis(), TimeUnit.MILLISECONDS);
        ScheduledFuture<?> previous = expiries.put(id, timer);
        if (previous != null) {
            previous.cancel(false);
        }
    }

    @Override
    public boolean release(String permitId) {
        Objects.requireNonNull(permitId, "permitId");
        checkId(permitId);
        ScheduledFuture<?> timer = expiries.remove(permitId);
        if (timer != null) {
            timer.cancel(false);
        }
        try {
            queue.session.sync("delete permit", zk -> {
                zk.delete(queue.path + "/" + permitId, -1);
                return null;
            });
            return true;
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (KeeperException e) {
            queue.deleteInBackground(permitId);
            throw queue.session.unavailable("release permit of " + name, e);
        } catch (RuntimeException e) {
            queue.deleteInBackground(permitId);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            queue.deleteInBackground(permitId);
            throw queue.session.unavailable("release permit of " + name, e);
        }
    }

    @Override
    public boolean updateLease(String permitId, Duration leaseTime) {
        Objects.requireNonNull(permitId, "permitId");
        checkId(permitId);
        checkLease(leaseTime);
        if (!expiries.containsKey(permitId)) {
            return false; // expired, released, or taken by another client (whose timer we cannot move)
        }
        try {
            queue.session.sync("update permit", zk -> zk.setData(queue.path + "/" + permitId,
                    PermitQueue.bytes(leaseTime.toMillis()), -1));
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (KeeperException e) {
            throw queue.session.unavailable("update permit of " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw queue.session.unavailable("update permit of " + name, e);
        }
        arm(permitId, leaseTime);
        return true;
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

    private static void checkLease(Duration leaseTime) {
        Arguments.positiveLease(leaseTime);
    }

    private static void checkId(String permitId) {
        if (permitId.isEmpty() || permitId.indexOf('/') >= 0 || permitId.equals(".") || permitId.equals("..")) {
            throw new IllegalArgumentException(String.format("not a permit id of this semaphore: '%s'", permitId));
        }
    }

    @Override
    public String toString() {
        return "ZkPermitExpirableSemaphore{name='" + name + "', path=" + queue.path + "}";
    }
}
