package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RetriedRemoval;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the file backend's counted primitives, one kind of one namespace on the JVM's
 * {@link LockDirectory}: the state file {@code lk-<hash>.<kind>} ({@link CountRecord}). Every operation is one task
 * on the directory's thread in one directory section (the directory's exclusive OS lock, held for a few system calls
 * and never while anyone waits): one read of the name's state file, at most one write ({@link Loaded}), so concurrent
 * changes from any thread, client or process are applied one after the other and none is lost.
 *
 * <p>A semaphore's file holds its available permits (unowned: a crashed holder's stay taken; the file stays once
 * set). A permit-expirable semaphore's holds the total and one {@code lease} line per held permit, whose end on the
 * wall clock drops it whenever any process reads the file after that end, so nobody has to be alive to end it; the
 * watchdog extends it ({@link #renew}: the exact permit, id and token, only). A latch's holds the count while armed
 * and is deleted by the count-down that reaches zero.
 *
 * <p>Wake-ups, after the section: {@link Loaded#store} tells this JVM's subscribers of a change that may let a waiter
 * in, the {@link DirectoryWatcher} of any change. Nobody writes the file when a lease runs out (its holder may be
 * dead): a lease attempt that found no permit answers when the earliest lease ends. The engine's re-check every
 * {@value #RECHECK_MILLIS} ms covers the rest (lost events, a watch service that polls, a network file system).
 */
public final class FileCountOps implements RemoteCountOps {
    private static final Logger log = LoggerFactory.getLogger(FileCountOps.class);

    /** The engine's fallback re-check: watch events can be lost (overflow) or late (polling watch services). */
    static final long RECHECK_MILLIS = 1_000;
    static final long RELEASE_RETRY_MILLIS = 1_000;

    /** One read-modify-write of a state file. */
    @FunctionalInterface
    interface Change<T> {
        T apply(Loaded loaded, DirectorySection s) throws IOException;
    }

    /** One read of a state file inside a section, and what the operation did with it. */
    final class Loaded {
        final String name;
        final Path path;
        /** When the file was read (epoch ms): leases that ended by then are gone from {@link #record}. */
        final long nowMillis;
        /** The state, {@code null} if the file does not exist; set to {@code null} to delete it. */
        CountRecord record;
        /** Whether {@link #store} writes (or deletes) the file. */
        boolean changed;
        /** Whether {@link #store} tells this JVM's subscribers (the change may let a waiter in). */
        boolean wake;

        /** Reads the state file of {@code name}, entering the section. */
        Loaded(DirectorySection s, String name) throws IOException {
            s.enter();
            this.name = name;
            this.path = directory.path().resolve(FileNames.countFile(namespace, name, kind));
            CountRecord r = CountRecord.read(path);
            if (r != null && (r.kind != kind || !r.namespace.equals(namespace) || !r.name.equals(name))) {
                throw new IOException(String.format("state file %s names %s '%s' of namespace '%s', not %s '%s'",
                        path, r.kind.label(), r.name, r.namespace, kind.label(), name));
            }
            nowMillis = System.currentTimeMillis();
            if (r != null && kind == CountKind.PERMITS) {
                r.dropExpired(nowMillis);
            }
            record = r;
        }

        /** The record, created with a count of 0 if the file does not exist yet. */
        CountRecord orCreate() {
            return record == null ? record = new CountRecord(kind, namespace, name, 0) : record;
        }

        /** Writes (or deletes) the file if it changed; tells this JVM's subscribers if that may let a waiter in. */
        void store(DirectorySection s, List<Runnable> after) throws IOException {
            if (changed) {
                s.enter();
                if (record == null) {
                    Files.deleteIfExists(path);
                } else {
                    record.write(path);
                }
            }
            if (wake) {
                String file = path.getFileName().toString();
                after.add(() -> directory.pushes.fire(file, null));
            }
        }
    }

    private final LockDirectory directory;
    private final String namespace;
    private final CountKind kind;
    private final RetriedRemoval releases;

    public FileCountOps(LockDirectory directory, String namespace, CountKind kind) {
        this.directory = directory;
        this.namespace = namespace;
        this.kind = kind;
        // retried on the directory's thread until it stops (the last client closes)
        this.releases = new RetriedRemoval((task, ms) -> directory.thread.schedule(task, ms, TimeUnit.MILLISECONDS),
                () -> !directory.thread.executor.isShutdown(), RELEASE_RETRY_MILLIS, RELEASE_RETRY_MILLIS, log);
    }

    /** Loads {@code name}'s state, applies {@code change}, stores what changed: one task, one section. */
    private <T> CompletableFuture<T> change(String op, String name, Change<T> change) {
        return directory.thread.submit(op + " " + kind.label() + " '" + name + "'", (s, after) -> {
            Loaded loaded = new Loaded(s, name);
            T result = change.apply(loaded, s);
            loaded.store(s, after);
            return result;
        });
    }

    /** Completes after one read of the state file, from when on every change is reported (the watcher was on). */
    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return directory.pushes.subscribe(FileNames.countFile(namespace, name, kind), changed)
                .thenCompose(sub -> change("subscribe to", name, (loaded, s) -> sub).whenComplete((ok, e) -> {
                    if (e != null) {
                        sub.close();
                    }
                }));
    }

    @Override
    public long recheckMillis() {
        return RECHECK_MILLIS;
    }

    /** An int count, clamped (a file's count is a long). */
    private static int clamp(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return change("read", name, (loaded, s) -> loaded.record == null ? 0 : clamp(loaded.record.available()));
    }

    /** Sets the count (the permits in total) if the file was never written; a positive count wakes waiters. */
    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return change("set permits of", name, (loaded, s) -> {
            if (loaded.record != null) {
                return false;
            }
            loaded.orCreate().count = permits;
            loaded.changed = true;
            loaded.wake = permits > 0;
            return true;
        });
    }

    /** Adds {@code delta} to the count; added permits wake waiters. */
    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return add("add permits to", name, delta);
    }

    private CompletableFuture<Void> add(String op, String name, int delta) {
        return change(op, name, (loaded, s) -> {
            loaded.orCreate().count += delta;
            loaded.changed = true;
            loaded.wake = delta > 0;
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        return change("take permits of", name, (loaded, s) -> {
            if (loaded.record == null || loaded.record.count < permits) {
                return false;
            }
            loaded.record.count -= permits;
            loaded.changed = true;
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return add("return permits to", name, permits);
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return change("drain", name, (loaded, s) -> {
            if (loaded.record == null || loaded.record.count <= 0) {
                return 0;
            }
            long taken = loaded.record.count;
            loaded.record.count = 0;
            loaded.changed = true;
            return clamp(taken); // all of them, as on every backend; the answer saturates
        });
    }

    @Override
    public boolean renewsPermits() {
        return kind == CountKind.PERMITS;
    }

    /** Takes a permit, or answers when the earliest lease ends (nobody writes the file when a lease runs out). */
    @Override
    public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        long sentAt = System.nanoTime();
        return change("take a permit of", name, (loaded, s) -> {
            CountRecord r = loaded.record;
            if (r == null) {
                return Attempt.busy();
            }
            CountRecord.Lease same = r.lease(permitId);
            if (same != null) {
                r.leases.remove(same); // an id is taken once; a second take replaces the first
            }
            if (r.count - r.leases.size() <= 0) {
                if (same != null) {
                    r.leases.add(same);
                }
                return r.leases.isEmpty() ? Attempt.busy() : Attempt.busy(
                        TimeUnit.MILLISECONDS.toNanos(Math.max(0, r.earliestLeaseEnd() - loaded.nowMillis) + 1));
            }
            long token = s.nextToken();
            r.leases.add(new CountRecord.Lease(permitId, token, System.currentTimeMillis() + leaseMillis, watchdog));
            loaded.changed = true;
            return Attempt.granted(new Grant(name, permitId, token, leaseMillis, watchdog, sentAt, null));
        });
    }

    /**
     * Removes the permit's lease line. If that fails while the directory is open (an I/O error such as a full disk),
     * the caller's future fails and the removal is retried every {@value #RELEASE_RETRY_MILLIS} ms until it goes
     * through or the directory closes, so that a released permit is not held until its lease ends. Retrying is
     * safe: the id names one grant, and a line already gone is a no-op.
     */
    @Override
    public CompletableFuture<Boolean> release(String name, String permitId) {
        return releases.release("release of permit " + permitId + " of '" + name + "' in " + directory.path(),
                () -> change("release a permit of", name, (loaded, s) -> setLease(loaded, permitId, -1)));
    }

    /** A new lease from now; waiters look again (a shorter lease ends sooner). */
    @Override
    public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        return change("update a permit's lease of", name, (loaded, s) -> setLease(loaded, permitId, leaseMillis));
    }

    /** Replaces the lease line of {@code permitId} with a fixed lease of {@code leaseMillis}, or removes it (-1). */
    private static boolean setLease(Loaded loaded, String permitId, long leaseMillis) {
        CountRecord.Lease lease = loaded.record == null ? null : loaded.record.lease(permitId);
        if (lease == null) {
            return false;
        }
        if (leaseMillis < 0) {
            loaded.record.leases.remove(lease);
        } else {
            loaded.record.extend(lease, System.currentTimeMillis() + leaseMillis, false);
        }
        loaded.changed = true;
        loaded.wake = true;
        return true;
    }

    /** Extends each watchdog permit still held under its id and token: one section, one write per semaphore. */
    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        Map<String, List<Grant>> byName = grants.stream()
                .collect(Collectors.groupingBy(Grant::name, LinkedHashMap::new, Collectors.toList()));
        return directory.thread.submit("renew permits", (s, after) -> {
            Set<Grant> lost = new HashSet<>();
            for (Map.Entry<String, List<Grant>> e : byName.entrySet()) {
                Loaded loaded = new Loaded(s, e.getKey());
                long now = System.currentTimeMillis();
                for (Grant g : e.getValue()) {
                    CountRecord.Lease lease = loaded.record == null ? null : loaded.record.lease(g.ownerId());
                    if (lease == null || lease.token() != g.fencingToken() || !lease.watchdog()) {
                        lost.add(g);
                        continue;
                    }
                    loaded.record.extend(lease, now + g.leaseMillis(), true);
                    loaded.changed = true;
                }
                loaded.store(s, after);
            }
            return lost;
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return change("arm", name, (loaded, s) -> {
            if (loaded.record != null && loaded.record.count > 0) {
                return false;
            }
            loaded.orCreate().count = count;
            loaded.changed = true;
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> countDown(String name) {
        return change("count down", name, (loaded, s) -> {
            if (loaded.record == null) {
                return null;
            }
            if (loaded.record.count <= 1) {
                loaded.record = null; // open: the file goes
                loaded.wake = true;
            } else {
                loaded.record.count--;
            }
            loaded.changed = true;
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return change("read", name, (loaded, s) -> loaded.record == null ? 0L : Math.max(0L, loaded.record.count));
    }

    @Override
    public String toString() {
        return "FileCountOps{" + directory.path() + ", kind=" + kind.label() + ", namespace='" + namespace + "'}";
    }
}
