package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Mutual exclusion and fencing under real contention: every thread of every client takes random names of a small set
 * for a while, alternating the thread-owned API ({@code tryLock}/{@code unlock}) and the lease API
 * ({@code tryAcquire}/{@code release}). All clients live in this JVM, so the critical section can observe what a
 * single machine sees: how many holders are inside at once, whether an unsynchronized read-modify-write lost an
 * update, and which fencing token each hold got in the order the holds were granted.
 */
final class ContentionCheck {

    static final String MUTUAL_EXCLUSION = "mutual exclusion";
    static final String FENCING = "fencing tokens";
    private static final int SHOWN = 3;

    record Outcome(CheckResult mutualExclusion, CheckResult fencing) {
    }

    private final List<Function<String, DistributedLock>> clients;
    private final List<String> names;
    private final int threadsPerClient;
    private final Duration duration;
    private final Duration waitBound;

    private final AtomicIntegerArray inside;
    private final AtomicInteger maxInside = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLongArray unsynchronized;
    private final AtomicLongArray holds;
    private final AtomicLongArray grantOrder;
    /** Per worker thread, so that recording adds no shared contention: (name index, grant order, token) triples. */
    private final List<GrantLog> grantLogs = new ArrayList<>();
    private final AtomicLong waitTimeouts = new AtomicLong();
    private final AtomicLong lostOnRelease = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<RuntimeException> firstError = new AtomicReference<>();

    /**
     * @param clients one lock factory per client ({@code LockClient::lock}); a test may pass a broken one
     * @param waitBound how long one attempt waits before it counts as a timeout (not a violation)
     */
    ContentionCheck(List<Function<String, DistributedLock>> clients, List<String> names, int threadsPerClient,
            Duration duration, Duration waitBound) {
        this.clients = List.copyOf(clients);
        this.names = List.copyOf(names);
        this.threadsPerClient = threadsPerClient;
        this.duration = duration;
        this.waitBound = waitBound;
        int n = names.size();
        inside = new AtomicIntegerArray(n);
        unsynchronized = new AtomicLongArray(n);
        holds = new AtomicLongArray(n);
        grantOrder = new AtomicLongArray(n);
    }

    Outcome run() throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        long end = System.nanoTime() + duration.toNanos();
        List<Thread> workers = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            List<DistributedLock> locks = new ArrayList<>();
            for (String name : names) {
                locks.add(clients.get(c).apply(name));
            }
            for (int t = 0; t < threadsPerClient; t++) {
                GrantLog log = new GrantLog();
                grantLogs.add(log);
                workers.add(VerifyThreads.start("latchkey-verify-c" + c + "-t" + t,
                        () -> work(locks, log, start, end)));
            }
        }
        start.countDown();
        // join() publishes every worker's log to this thread
        try {
            for (Thread w : workers) {
                w.join();
            }
        } catch (InterruptedException e) {
            // Ctrl-C: every worker ends its wait or releases its hold, then the caller cleans up
            for (Thread w : workers) {
                w.interrupt();
            }
            for (Thread w : workers) {
                w.join(waitBound.toMillis() + 1_000);
            }
            throw e;
        }
        return new Outcome(mutualExclusionResult(), fencingResult());
    }

    private void work(List<DistributedLock> locks, GrantLog log, CountDownLatch start, long end) {
        try {
            start.await();
            boolean leaseApi = ThreadLocalRandom.current().nextBoolean();
            while (System.nanoTime() < end) {
                int n = ThreadLocalRandom.current().nextInt(locks.size());
                DistributedLock lock = locks.get(n);
                leaseApi = !leaseApi;
                try {
                    if (leaseApi) {
                        Optional<LockLease> lease = lock.tryAcquire(waitBound);
                        if (lease.isEmpty()) {
                            waitTimeouts.incrementAndGet();
                            continue;
                        }
                        try {
                            critical(n, lease.get().fencingToken(), log);
                        } finally {
                            lease.get().release();
                        }
                    } else {
                        if (!lock.tryLock(waitBound.toMillis(), TimeUnit.MILLISECONDS)) {
                            waitTimeouts.incrementAndGet();
                            continue;
                        }
                        try {
                            critical(n, lock.fencingToken().orElse(-1), log);
                        } finally {
                            lock.unlock();
                        }
                    }
                } catch (LockLostException e) {
                    // A hold lost while inside (e.g. a long pause) is told, which is the contract; others may have
                    // entered after it, and the inside counter shows whether they did while we were still in.
                    lostOnRelease.incrementAndGet();
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                    firstError.compareAndSet(null, e);
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void critical(int n, long token, GrantLog log) {
        int now = inside.incrementAndGet(n);
        if (now > 1) {
            overlaps.incrementAndGet();
        }
        maxInside.accumulateAndGet(now, Math::max);
        log.add(n, grantOrder.incrementAndGet(n), token);
        // A read-modify-write with a gap: two holders inside at once lose one of the increments.
        long value = unsynchronized.get(n);
        Thread.yield();
        unsynchronized.set(n, value + 1);
        holds.incrementAndGet(n);
        inside.decrementAndGet(n);
    }

    private CheckResult mutualExclusionResult() {
        long totalHolds = 0;
        long counted = 0;
        for (int i = 0; i < names.size(); i++) {
            totalHolds += holds.get(i);
            counted += unsynchronized.get(i);
        }
        long lostUpdates = totalHolds - counted;
        String evidence = String.format(Locale.ROOT,
                "%,d holds by %d clients x %d threads on %d names in %s; max inside %d, lost updates %,d",
                totalHolds, clients.size(), threadsPerClient, names.size(), Durations.format(duration),
                maxInside.get(), lostUpdates);
        if (overlaps.get() > 0) {
            evidence += String.format(Locale.ROOT, ", %,d entries while another holder was inside", overlaps.get());
        }
        if (waitTimeouts.get() > 0) {
            evidence += String.format(Locale.ROOT, ", %d waits over %s", waitTimeouts.get(),
                    Durations.format(waitBound));
        }
        if (lostOnRelease.get() > 0) {
            evidence += String.format(Locale.ROOT, ", %d holds lost (told on release)", lostOnRelease.get());
        }
        if (firstError.get() != null) {
            RuntimeException e = firstError.get();
            return CheckResult.fail(MUTUAL_EXCLUSION, evidence + String.format(Locale.ROOT, "; %d threads failed: %s: %s",
                    errors.get(), e.getClass().getSimpleName(),
                    Secrets.mask(Connector.firstLine(String.valueOf(e.getMessage())))));
        }
        if (totalHolds == 0) {
            return CheckResult.fail(MUTUAL_EXCLUSION, evidence + "; no hold was granted");
        }
        boolean ok = maxInside.get() <= 1 && lostUpdates == 0;
        return ok ? CheckResult.pass(MUTUAL_EXCLUSION, evidence) : CheckResult.fail(MUTUAL_EXCLUSION, evidence);
    }

    private CheckResult fencingResult() {
        long checked = 0;
        long violations = 0;
        List<String> shown = new ArrayList<>();
        List<List<long[]>> perName = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            perName.add(new ArrayList<>());
        }
        for (GrantLog log : grantLogs) {
            for (int k = 0; k < log.size; k++) {
                perName.get((int) log.entries[3 * k]).add(new long[] {log.entries[3 * k + 1], log.entries[3 * k + 2]});
            }
        }
        for (int i = 0; i < names.size(); i++) {
            List<long[]> inOrder = perName.get(i);
            inOrder.sort(Comparator.comparingLong(g -> g[0]));
            long previous = Long.MIN_VALUE;
            for (long[] g : inOrder) {
                checked++;
                long token = g[1];
                if (token < 0 || token <= previous) {
                    violations++;
                    if (shown.size() < SHOWN) {
                        shown.add(token < 0
                                ? String.format(Locale.ROOT, "%s grant #%d had no token", names.get(i), g[0])
                                : String.format(Locale.ROOT, "%s grant #%d: token %d after %d", names.get(i), g[0],
                                        token, previous));
                    }
                }
                previous = Math.max(previous, token);
            }
        }
        if (checked == 0) {
            return CheckResult.fail(FENCING, "no hold was granted");
        }
        if (violations == 0) {
            return CheckResult.pass(FENCING, String.format(Locale.ROOT,
                    "%,d tokens on %d names strictly increasing in grant order", checked, names.size()));
        }
        return CheckResult.fail(FENCING, String.format(Locale.ROOT, "%,d of %,d tokens not above the previous: %s",
                violations, checked, String.join("; ", shown)));
    }

    /** One worker's grants, written only by that worker. */
    private static final class GrantLog {
        long[] entries = new long[3 * 1024];
        int size;

        void add(int nameIndex, long order, long token) {
            if (3 * size + 3 > entries.length) {
                entries = Arrays.copyOf(entries, entries.length * 2);
            }
            entries[3 * size] = nameIndex;
            entries[3 * size + 1] = order;
            entries[3 * size + 2] = token;
            size++;
        }
    }
}
