package io.latchkey.jdbc;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Named daemon threads: every thread the backend starts says whose it is. */
final class NamedThreads implements ThreadFactory {

    private final String prefix;
    private final AtomicInteger next = new AtomicInteger();

    NamedThreads(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, prefix + "-" + next.incrementAndGet());
        t.setDaemon(true);
        return t;
    }
}
