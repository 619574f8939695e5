package io.latchkey.zookeeper.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The ZooKeeper layout shared by both semaphores: a persistent node whose data is the number of permits, and one
 * ephemeral sequential child per permit taken or wanted ({@code _c_<uuid>-permit-<seq>}). In sequence order, the
 * first {@code permits} children hold; the rest wait, FIFO. A crashed holder's children go with its session, so its
 * permits come back by themselves.
 *
 * <p>Waiters watch the children and the permit count (a release or a change of permits wakes every waiter of the
 * semaphore, which then re-checks its rank: semaphores are not where herds matter).
 *
 * <p>All calls block the calling thread on the server (never an event thread) and are bounded by the operation
 * timeout per round trip.
 */
final class PermitQueue {

    static final String PERMIT = "permit-";

    final ZkSession session;
    final String path;
    private final RetriedDelete deletes;

    PermitQueue(ZkSession session, String path) {
        this.session = session;
        this.path = path;
        this.deletes = new RetriedDelete(session);
    }

    /** The configured permits, or -1 if never set (no node, or a node created by a waiter with no data). */
    int configured(Watcher watcher) throws KeeperException, InterruptedException {
        try {
            byte[] data = session.sync("read " + path, zk -> zk.getData(path, watcher, null));
            return data == null || data.length == 0 ? -1 : parse(data);
        } catch (KeeperException.NoNodeException e) {
            if (watcher != null) {
                session.sync("watch " + path, zk -> zk.exists(path, watcher));
            }
            return -1;
        }
    }

    static int parse(byte[] data) {
        if (data == null || data.length == 0) {
            return 0;
        }
        return Integer.parseInt(new String(data, StandardCharsets.UTF_8).trim());
    }

    static byte[] bytes(long value) {
        return Long.toString(value).getBytes(StandardCharsets.UTF_8);
    }

    /** Creates the semaphore's node with no data ("never set") if it does not exist. */
    private void ensureNode() throws KeeperException, InterruptedException {
        session.createContainers(parentOf(path), false);
        try {
            session.sync("create " + path, zk -> zk.create(path, new byte[0], session.acl(), CreateMode.PERSISTENT));
        } catch (KeeperException.NodeExistsException e) {
            // someone else made it
        }
    }

    /** Sets the permits if they were never set (compare-and-set on the node's version). */
    boolean trySet(int permits) throws KeeperException, InterruptedException {
        while (true) {
            Stat stat = new Stat();
            byte[] data;
            try {
                data = session.sync("read " + path, zk -> zk.getData(path, false, stat));
            } catch (KeeperException.NoNodeException e) {
                session.createContainers(parentOf(path), false);
                try {
                    session.sync("create " + path,
                            zk -> zk.create(path, bytes(permits), session.acl(), CreateMode.PERSISTENT));
                    return true;
                } catch (KeeperException.NodeExistsException again) {
                    continue;
                }
            }
            if (data != null && data.length > 0) {
                return false;
            }
            try {
                session.sync("set " + path, zk -> zk.setData(path, bytes(permits), stat.getVersion()));
                return true;
            } catch (KeeperException.BadVersionException e) {
                // changed in between: look again
            }
        }
    }

    void add(int delta) throws KeeperException, InterruptedException {
        while (true) {
            Stat stat = new Stat();
            byte[] data;
            try {
                data = session.sync("read " + path, zk -> zk.getData(path, false, stat));
            } catch (KeeperException.NoNodeException e) {
                if (trySet(Math.max(0, delta))) {
                    return;
                }
                continue;
            }
            int next = Math.max(0, parse(data) + delta);
            try {
                session.sync("update " + path, zk -> zk.setData(path, bytes(next), stat.getVersion()));
                return;
            } catch (KeeperException.BadVersionException e) {
                // someone else changed the permits in between: read again
            }
        }
    }

    /** Free permits now (configured minus taken), for the semaphores' {@code availablePermits()}. */
    int availablePermits(String semaphoreName) {
        try {
            int configured = Math.max(0, configured(null));
            return Math.max(0, configured - children(null).size());
        } catch (KeeperException e) {
            throw session.unavailable("read semaphore " + semaphoreName, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw session.unavailable("read semaphore " + semaphoreName, e);
        }
    }

    /** {@link #trySet} with the semaphores' error mapping. */
    boolean trySetPermits(String semaphoreName, int permits) {
        try {
            return trySet(permits);
        } catch (KeeperException e) {
            throw session.unavailable("set semaphore " + semaphoreName, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw session.unavailable("set semaphore " + semaphoreName, e);
        }
    }

    /** {@link #add} with the semaphores' error mapping. */
    void addPermits(String semaphoreName, int delta) {
        try {
            add(delta);
        } catch (KeeperException e) {
            throw session.unavailable("add permits to semaphore " + semaphoreName, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw session.unavailable("add permits to semaphore " + semaphoreName, e);
        }
    }

    List<String> children(Watcher watcher) throws KeeperException, InterruptedException {
        try {
            return LockNodes.sorted(session.sync("list " + path, zk -> zk.getChildren(path, watcher)));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Creates {@code count} permit nodes at once (one multi: they are adjacent in the queue). */
    List<String> enqueue(int count, byte[] data) throws KeeperException, InterruptedException {
        while (true) {
            List<Op> ops = new ArrayList<>(count);
            String uuid = UUID.randomUUID().toString();
            for (int i = 0; i < count; i++) {
                ops.add(Op.create(path + "/" + LockNodes.protectedName(uuid, PERMIT), data, session.acl(),
                        CreateMode.EPHEMERAL_SEQUENTIAL));
            }
            try {
                List<OpResult> results = session.sync("create permits under " + path, zk -> zk.multi(ops));
                List<String> names = new ArrayList<>(count);
                for (OpResult r : results) {
                    String p = ((OpResult.CreateResult) r).getPath();
                    names.add(p.substring(p.lastIndexOf('/') + 1));
                }
                return names;
            } catch (KeeperException.NoNodeException e) {
                // a semaphore nobody set yet: waiters queue on a node without data until someone sets permits
                ensureNode();
            }
        }
    }

    /**
     * Deletes our {@code nodes}, each within the operation timeout. A delete that does not reach the server is
     * retried in the background until it does ({@link RetriedDelete}): the node is ephemeral, but this client keeps
     * its session alive, so a node left behind would hold its permit (or its place in the queue) for the client's
     * lifetime. After every node was tried, the first failure is thrown; an interrupt sends the rest to the
     * background at once (the flag stays set).
     *
     * @throws io.latchkey.LockUnavailableException if a delete did not reach the server in time (it goes on
     *         in the background)
     */
    void delete(List<String> nodes) {
        RuntimeException failure = null;
        for (String n : nodes) {
            if (Thread.currentThread().isInterrupted()) {
                deleteInBackground(n);
                continue;
            }
            try {
                session.sync("delete " + n, zk -> {
                    zk.delete(path + "/" + n, -1);
                    return null;
                });
            } catch (KeeperException.NoNodeException e) {
                // already gone (expired session, released by another client)
            } catch (KeeperException | RuntimeException e) {
                deleteInBackground(n);
                failure = failure != null ? failure : session.unavailable("delete " + path + "/" + n, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                deleteInBackground(n);
                failure = failure != null ? failure : session.unavailable("delete " + path + "/" + n, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * {@link #delete}, never throwing: for a waiter that gives up (its caller hears of the reason it gave up, not of
     * the clean-up, which goes on in the background).
     */
    void deleteQuietly(List<String> nodes) {
        try {
            delete(nodes);
        } catch (RuntimeException e) {
            // retried in the background until the server answers
        }
    }

    /** Deletes our {@code node} without blocking, retried until the server answers ({@link RetriedDelete}). */
    void deleteInBackground(String node) {
        deletes.delete(path + "/" + node, 0, null).exceptionally(e -> false);
    }

    /**
     * Waits until every node of {@code ours} is among the first {@code permits} children, or the wait is over.
     *
     * @param deadlineNanos {@link System#nanoTime()} deadline, or {@link Long#MAX_VALUE}
     * @return whether the permits are held; on {@code false} the caller removes its nodes
     */
    boolean awaitTurn(List<String> ours, long deadlineNanos) throws KeeperException, InterruptedException {
        WatchSignal watcher = new WatchSignal();
        while (true) {
            watcher.rearm();
            int permits = Math.max(0, configured(watcher));
            List<String> children = children(watcher);
            int last = -1;
            for (String n : ours) {
                int i = children.indexOf(n);
                if (i < 0) {
                    return false; // our node vanished (session expired): the caller starts over or gives up
                }
                last = Math.max(last, i);
            }
            if (last < permits) {
                return true;
            }
            if (!watcher.awaitEvent(deadlineNanos)) {
                return false;
            }
        }
    }

    static String parentOf(String p) {
        return p.substring(0, p.lastIndexOf('/'));
    }
}
