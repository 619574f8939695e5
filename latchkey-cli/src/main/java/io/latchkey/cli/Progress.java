package io.latchkey.cli;

import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo's progress on stderr. On a terminal a bar redrawn in place by a named daemon thread; otherwise one line
 * when each strategy starts, so logs stay readable; nothing when disabled.
 */
final class Progress implements AutoCloseable {

    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final boolean interactive;
    private final boolean enabled;
    private final long total;
    private final AtomicLong done = new AtomicLong();
    private volatile String label = "";
    private volatile boolean running = true;
    private final Thread painter;

    Progress(PrintWriter err, long total, boolean enabled) {
        this.err = err;
        this.total = Math.max(1, total);
        this.enabled = enabled;
        this.interactive = enabled && System.console() != null;
        if (interactive) {
            painter = new Thread(this::paintLoop, "latchkey-demo-progress");
            painter.setDaemon(true);
            painter.start();
        } else {
            painter = null;
        }
    }

    void startStep(String step) {
        label = step;
        if (enabled && !interactive) {
            err.printf("running %s …%n", step);
            err.flush();
        }
    }

    void advance() {
        done.incrementAndGet();
    }

    private void paintLoop() {
        while (running) {
            paint();
            LockSupport.parkNanos(100_000_000L);
        }
    }

    private synchronized void paint() {
        long d = Math.min(done.get(), total);
        int filled = (int) (WIDTH * d / total);
        err.printf("\r[%s%s] %3d%%  %-28s", "#".repeat(filled), ".".repeat(WIDTH - filled), 100 * d / total, label);
        err.flush();
    }

    @Override
    public void close() {
        running = false;
        if (painter != null) {
            painter.interrupt();
            try {
                painter.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (this) {
                err.print("\r" + " ".repeat(WIDTH + 40) + "\r");
                err.flush();
            }
        }
    }
}
