package io.latchkey.micronaut;

import io.latchkey.integration.DelayedReleases;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.event.ShutdownEvent;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running {@link Locked} and {@link LockedSchedule} methods, and the application's shutdown in order: on
 * Micronaut's {@link ShutdownEvent} (published before any bean is destroyed) no new work is locked, the running work
 * gets {@code latchkey.shutdown-grace-period} to end, the {@code lockAtLeastFor} releases still waiting are done at
 * once; then the context destroys its beans, the {@link io.latchkey.LockClient} last among those that use it, whose
 * {@code close()} releases whatever is still held.
 */
@Singleton
final class LockedWork implements ApplicationEventListener<ShutdownEvent> {

    private static final Logger LOG = LoggerFactory.getLogger(LockedWork.class);

    private final Duration gracePeriod;
    private final DelayedReleases delayedReleases = new DelayedReleases("@LockedSchedule");
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private int running;
    private boolean stopping;

    LockedWork(LatchkeyConfiguration configuration) {
        this.gracePeriod = configuration.getShutdownGracePeriod();
    }

    /** {@return whether new work may start; if so the caller must call {@link #exit()} when it ends} */
    boolean enter() {
        lock.lock();
        try {
            if (stopping) {
                return false;
            }
            running++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    void exit() {
        lock.lock();
        try {
            if (--running == 0) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    DelayedReleases delayedReleases() {
        return delayedReleases;
    }

    @Override
    public void onApplicationEvent(ShutdownEvent event) {
        int left;
        long deadline = System.nanoTime() + gracePeriod.toNanos();
        boolean interrupted = false;
        lock.lock();
        try {
            stopping = true;
            while (running > 0) {
                long rest = deadline - System.nanoTime();
                if (rest <= 0) {
                    break;
                }
                try {
                    idle.awaitNanos(rest);
                } catch (InterruptedException e) {
                    interrupted = true;
                    break;
                }
            }
            left = running;
        } finally {
            lock.unlock();
        }
        if (left > 0) {
            LOG.warn("{} @Locked/@LockedSchedule method(s) still running after latchkey.shutdown-grace-period ({}); "
                    + "their locks are released when the LockClient closes", left, gracePeriod);
        }
        delayedReleases.close();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
