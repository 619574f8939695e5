package io.latchkey.zookeeper.internal;

import io.latchkey.DistributedCountDownLatch;
import io.latchkey.core.Arguments;
import java.time.Duration;
import java.util.Objects;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * {@link DistributedCountDownLatch} on ZooKeeper: one persistent node whose data is the count, changed with
 * version-checked writes (compare-and-set, so concurrent count-downs are never lost). Waiters set a data watch and
 * are woken by ZooKeeper when the count changes; a missing node counts as zero, and the count-down to zero deletes
 * the node (its parent is a container node the server reaps), so an opened latch leaves nothing on the server.
 */
public final class ZkCountDownLatch implements DistributedCountDownLatch {

    private final ZkSession session;
    private final String name;
    private final String path;

    public ZkCountDownLatch(ZkSession session, String name, String path) {
        this.session = session;
        this.name = name;
        this.path = path;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean trySetCount(long count) {
        Arguments.positive("count", count);
        return call("arm latch", () -> {
            while (true) {
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = session.sync("read " + path, zk -> zk.getData(path, false, stat));
                } catch (KeeperException.NoNodeException e) {
                    session.createContainers(PermitQueue.parentOf(path), false);
                    try {
                        session.sync("create " + path,
                                zk -> zk.create(path, PermitQueue.bytes(count), session.acl(), CreateMode.PERSISTENT));
                        return true;
                    } catch (KeeperException.NodeExistsException again) {
                        continue;
                    } catch (KeeperException.NoNodeException parentReaped) {
                        // the server reaped the emptied parent container in between: create it again
                        continue;
                    }
                }
                if (parse(data) > 0) {
                    return false;
                }
                try {
                    session.sync("arm " + path, zk -> zk.setData(path, PermitQueue.bytes(count), stat.getVersion()));
                    return true;
                } catch (KeeperException.BadVersionException e) {
                    // changed in between: look again
                }
            }
        });
    }

    @Override
    public void countDown() {
        call("count down latch", () -> {
            while (true) {
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = session.sync("read " + path, zk -> zk.getData(path, false, stat));
                } catch (KeeperException.NoNodeException e) {
                    return null;
                }
                long count = parse(data);
                if (count <= 0) {
                    return null;
                }
                try {
                    if (count == 1) {
                        // Open: the node goes (a missing node counts as zero), so an opened latch leaves nothing
                        // on the server; waiters' data watches fire NodeDeleted and they read zero.
                        session.sync("open " + path, zk -> {
                            zk.delete(path, stat.getVersion());
                            return null;
                        });
                    } else {
                        session.sync("count down " + path,
                                zk -> zk.setData(path, PermitQueue.bytes(count - 1), stat.getVersion()));
                    }
                    return null;
                } catch (KeeperException.NoNodeException e) {
                    return null; // another count-down opened it meanwhile
                } catch (KeeperException.BadVersionException e) {
                    // a concurrent count-down won: read again
                }
            }
        });
    }

    @Override
    public long getCount() {
        return call("read latch", () -> count(null));
    }

    private long count(Watcher watcher) throws KeeperException, InterruptedException {
        try {
            return parse(session.sync("read " + path, zk -> zk.getData(path, watcher, null)));
        } catch (KeeperException.NoNodeException e) {
            if (watcher != null) {
                // exists sets a watch even on a missing node: a later trySetCount must not slip by
                if (session.sync("watch " + path, zk -> zk.exists(path, watcher)) != null) {
                    return count(watcher);
                }
            }
            return 0;
        }
    }

    @Override
    public void await() throws InterruptedException {
        awaitUntil(Long.MAX_VALUE);
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        long nanos = timeout.toNanos();
        return awaitUntil(nanos > Long.MAX_VALUE / 4 ? Long.MAX_VALUE : System.nanoTime() + nanos);
    }

    private boolean awaitUntil(long deadlineNanos) throws InterruptedException {
        WatchSignal watcher = new WatchSignal();
        while (true) {
            watcher.rearm();
            long count;
            try {
                count = count(watcher);
            } catch (KeeperException e) {
                throw session.unavailable("wait on latch " + name, e);
            }
            if (count <= 0) {
                return true;
            }
            if (!watcher.awaitEvent(deadlineNanos)) {
                return false;
            }
        }
    }

    private static long parse(byte[] data) {
        if (data == null || data.length == 0) {
            return 0;
        }
        return Long.parseLong(new String(data, java.nio.charset.StandardCharsets.UTF_8).trim());
    }

    @FunctionalInterface
    private interface Body<T> {
        T run() throws KeeperException, InterruptedException;
    }

    private <T> T call(String operation, Body<T> body) {
        try {
            return body.run();
        } catch (KeeperException e) {
            throw session.unavailable(operation + " " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw session.unavailable(operation + " " + name + " (interrupted)", e);
        }
    }

    @Override
    public String toString() {
        return "ZkCountDownLatch{name='" + name + "', path=" + path + "}";
    }
}
