package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Mutual exclusion under load: platform threads across several clients, timed attempts racing with grants,
 * thousands of asynchronous waiters, and 10,000 virtual threads through one client (JDK 21+).
 */
public abstract class ConcurrencyStressTck extends TckBase {

    /** Counts entries into a critical section and catches overlaps and lost updates. */
    protected static final class CriticalSection {
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger maxInside = new AtomicInteger();
        private final AtomicInteger entries = new AtomicInteger();
        /** Deliberately unsynchronized: only the lock protects it, so a breach shows up as a lost update. */
        private long counter;

        public void enter(boolean yield) {
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            long seen = counter;
            if (yield) {
                Thread.yield();
            }
            counter = seen + 1;
            entries.incrementAndGet();
            inside.decrementAndGet();
        }

        public void assertExclusive(int expectedEntries) {
            assertThat(entries).hasValue(expectedEntries);
            assertThat(maxInside.get()).as("most holders inside at once").isEqualTo(1);
            assertThat(counter).as("unsynchronized counter (lost updates mean overlapping holders)")
                    .isEqualTo(expectedEntries);
        }
    }

    @Test
    void mutualExclusionAcrossThreadsAndClients() throws Exception {
        String name = newName();
        int clientCount = 3;
        int threadsPerClient = 4;
        int iterations = 40;
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < clientCount; i++) {
            clients.add(openClient());
        }
        CriticalSection section = new CriticalSection();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(clientCount * threadsPerClient, named("tck-stress"));
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < clientCount * threadsPerClient; t++) {
                DistributedLock lock = clients.get(t % clientCount).lock(name);
                boolean useLeases = t % 2 == 1;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < iterations; i++) {
                        if (useLeases) {
                            try (LockLease lease = lock.acquire()) {
                                section.enter(true);
                            }
                        } else {
                            lock.lock();
                            try {
                                section.enter(true);
                            } finally {
                                lock.unlock();
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        section.assertExclusive(clientCount * threadsPerClient * iterations);
        assertThat(clients.get(0).lock(name).isLocked()).isFalse();
    }

    @Test
    void timedAttemptsRacingWithReleasesLeaveNoLockBehind() throws Exception {
        String name = newName();
        List<LockClient> clients = List.of(openClient(), openClient());
        CriticalSection section = new CriticalSection();
        AtomicInteger successes = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(6, named("tck-timed"));
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                DistributedLock lock = clients.get(t % 2).lock(name);
                boolean useLeases = t % 3 == 2;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        Duration wait = Duration.ofMillis(ThreadLocalRandom.current().nextInt(0, 4));
                        if (useLeases) {
                            Optional<LockLease> lease = lock.tryAcquire(wait);
                            if (lease.isPresent()) {
                                section.enter(false);
                                successes.incrementAndGet();
                                lease.get().release();
                            }
                        } else if (lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                            try {
                                section.enter(false);
                                successes.incrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        section.assertExclusive(successes.get());
        assertThat(successes.get()).as("some attempts succeed").isPositive();
        DistributedLock probe = openClient().lock(name);
        assertThat(probe.tryLock(200, TimeUnit.MILLISECONDS)).as("nothing left behind").isTrue();
        probe.unlock();
    }

    /**
     * 48 threads over two clients mix {@code lock()}, timed {@code tryLock} and {@code lockInterruptibly()} on one
     * name for two seconds while another thread interrupts them at random: no two inside at once, every thread
     * finishes once asked to stop (none stuck in a wait, an unlock or a give-back), and the lock is free at the end.
     * An interrupt may land anywhere: in a wait (which then throws and takes nothing), in the critical section or in
     * {@code unlock()} (which still releases and keeps the flag).
     */
    @Test
    void fortyEightThreadsMixingWaitsUnderRandomInterruptsLeaveNoOverlapAndAFreeLock() throws Exception {
        String name = newName();
        List<LockClient> clients = List.of(openClient(), openClient());
        CriticalSection section = new CriticalSection();
        AtomicInteger successes = new AtomicInteger();
        AtomicInteger interrupted = new AtomicInteger();
        int threads = 48;
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            DistributedLock lock = clients.get(t % 2).lock(name);
            int kind = t % 3;
            Thread worker = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        boolean held;
                        if (kind == 0) {
                            lock.lock();
                            held = true;
                        } else if (kind == 1) {
                            held = lock.tryLock(ThreadLocalRandom.current().nextInt(0, 30), TimeUnit.MILLISECONDS);
                        } else {
                            lock.lockInterruptibly();
                            held = true;
                        }
                        if (held) {
                            try {
                                section.enter(false);
                                successes.incrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                        }
                    } catch (InterruptedException e) {
                        interrupted.incrementAndGet();
                    } catch (Throwable e) {
                        failures.add(e);
                        return;
                    }
                }
            }, "tck-interrupted-" + t);
            worker.setDaemon(true);
            workers.add(worker);
        }
        workers.forEach(Thread::start);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() < end) {
            workers.get(ThreadLocalRandom.current().nextInt(threads)).interrupt();
            Thread.sleep(0, 500_000);
        }
        stop.set(true);
        long joinBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> stuck = new ArrayList<>();
        for (Thread worker : workers) {
            worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinBy - System.nanoTime())));
            if (worker.isAlive()) {
                stuck.add(worker.getName() + " " + java.util.Arrays.toString(worker.getStackTrace()));
                worker.interrupt();
            }
        }
        assertThat(stuck).as("threads still running 60 s after the stop").isEmpty();
        assertThat(failures).as("unexpected failures").isEmpty();
        section.assertExclusive(successes.get());
        assertThat(successes.get()).as("some acquires succeed").isPositive();
        assertThat(interrupted.get()).as("some waits are interrupted").isPositive();
        DistributedLock probe = openClient().lock(name);
        assertThat(probe.tryLock(slack().toMillis(), TimeUnit.MILLISECONDS)).as("the lock is free at the end").isTrue();
        probe.unlock();
        System.out.printf("%s: %d threads, %d acquires, %d interrupted waits in 2 s%n", getClass().getSimpleName(),
                threads, successes.get(), interrupted.get());
    }

    @Test
    void thousandAsyncWaitersOnOneName() throws Exception {
        String name = newName();
        List<LockClient> clients = List.of(client(), openClient());
        LockLease holder = client().lock(name).acquire();
        CriticalSection section = new CriticalSection();
        ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        int waiters = 1000;
        for (int i = 0; i < waiters; i++) {
            done.add(clients.get(i % 2).lock(name).acquireAsync().thenCompose(lease -> {
                tokens.add(lease.fencingToken());
                section.enter(false);
                return lease.releaseAsync();
            }));
        }
        holder.release();
        try {
            CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            long finished = done.stream().filter(CompletableFuture::isDone).count();
            throw new AssertionError(String.format("%d of %d async waiters finished within 30 s (entries %d, "
                    + "lock held: %s)", finished, waiters, section.entries.get(), client().lock(name).isLocked()), e);
        }
        section.assertExclusive(waiters);
        assertThat(tokens).doesNotHaveDuplicates().allMatch(token -> token > holder.fencingToken());
        assertThat(client().lock(name).isLocked()).isFalse();
    }

    @Test
    void tenThousandVirtualThreadsOnOneNameThroughOneClient() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() >= 21,
                "virtual threads need JDK 21+ (running " + Runtime.version() + "); CI reruns the TCK on JDK 25");
        String name = newName();
        LockClient c = client();
        CriticalSection section = new CriticalSection();
        AtomicInteger finished = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        int tasks = 10_000;
        CountDownLatch start = new CountDownLatch(1);
        long began = System.nanoTime();
        ExecutorService executor = newVirtualThreadExecutor("tck-vt-");
        try {
            for (int i = 0; i < tasks; i++) {
                boolean useLease = i % 2 == 1;
                executor.execute(() -> {
                    try {
                        start.await();
                        DistributedLock lock = c.lock(name);
                        if (useLease) {
                            try (LockLease lease = lock.acquire()) {
                                section.enter(false);
                            }
                        } else {
                            lock.lock();
                            try {
                                section.enter(false);
                            } finally {
                                lock.unlock();
                            }
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    } finally {
                        finished.incrementAndGet();
                    }
                });
            }
            start.countDown();
            executor.shutdown();
            boolean terminated = executor.awaitTermination(60, TimeUnit.SECONDS);
            assertThat(terminated).as("all %d virtual threads finished within 60 s (finished: %d)", tasks,
                    finished.get()).isTrue();
        } finally {
            executor.shutdownNow();
        }
        assertThat(failures).isEmpty();
        section.assertExclusive(tasks);
        assertThat(c.lock(name).isLocked()).isFalse();
        System.out.printf("%s: %d virtual threads through one client in %d ms%n", getClass().getSimpleName(),
                tasks, millisSince(began));
    }

    /** A virtual-thread-per-task executor with named threads, through reflection so that this compiles on 17. */
    private static ExecutorService newVirtualThreadExecutor(String prefix) throws ReflectiveOperationException {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        builder = builderType.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
        ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
        Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
        return (ExecutorService) perTask.invoke(null, factory);
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + n.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
