package io.latchkey.bench.redis.scale;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/** Runs a body on named platform threads and waits for them; the first failure is rethrown. */
final class Parallel {

    private Parallel() {
    }

    /** Starts {@code threads} threads running {@code body.accept(index)}; does not wait. */
    static List<Thread> start(String name, int threads, IntConsumer body, AtomicReference<Throwable> failure) {
        List<Thread> started = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = new Thread(null, () -> {
                try {
                    body.accept(index);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, name + "-" + i, 256 * 1024);
            t.setDaemon(true);
            t.start();
            started.add(t);
        }
        return started;
    }

    /** Waits for every thread, then rethrows the first failure. */
    static void join(List<Thread> threads, AtomicReference<Throwable> failure) throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
        Throwable e = failure.get();
        if (e != null) {
            throw new IllegalStateException("a benchmark thread failed: " + e, e);
        }
    }

    /** {@link #start} and {@link #join}. */
    static void run(String name, int threads, IntConsumer body) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        join(start(name, threads, body, failure), failure);
    }
}
