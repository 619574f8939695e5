package io.latchkey.quarkus;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.latchkey.integration.CurrentLease;
import io.latchkey.integration.DurationText;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/** The interceptor behind {@link LockedScheduled}: try the lock once, run or skip, release now or after lockAtLeastFor. */
@LockedScheduled
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
class LockedScheduledInterceptor {

    private static final Logger LOG = Logger.getLogger(LockedScheduledInterceptor.class);

    private final Map<Method, Operation> operations = new ConcurrentHashMap<>();

    @Inject
    LockClient client;

    @Inject
    DelayedReleases delayedReleases;

    @AroundInvoke
    Object around(InvocationContext context) throws Exception {
        Operation op = operations.computeIfAbsent(context.getMethod(), LockedScheduledInterceptor::operation);
        if (delayedReleases.stopping()) {
            // the scheduler may fire once more while the application stops; its client is about to close
            LOG.debugf("@LockedScheduled '%s': the application is stopping; skipping this run", op.name);
            return null;
        }
        LockLease lease = tryAcquire(op);
        if (lease == null) {
            return null;
        }
        long start = System.nanoTime();
        Run run = new Run(Thread.currentThread(), op.onLost == LockedScheduled.OnLost.INTERRUPT);
        lease.onLost(run::lost);
        LockLease previous = CurrentLease.enter(lease);
        try {
            return context.proceed();
        } finally {
            CurrentLease.exit(previous);
            boolean wasLost = run.finish();
            end(op, lease, wasLost, Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /** The lease, or null when another instance holds the lock (a quiet skip). */
    private LockLease tryAcquire(Operation op) {
        DistributedLock lock = client.lock(op.name);
        Optional<LockLease> lease;
        try {
            lease = op.lockAtMostFor == null
                    ? lock.tryAcquire(Duration.ZERO)
                    : lock.tryAcquire(Duration.ZERO, op.lockAtMostFor);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.debugf("@LockedScheduled '%s': interrupted while trying the lock; skipping this run", op.name);
            return null;
        }
        if (lease.isEmpty()) {
            LOG.debugf("@LockedScheduled '%s': held elsewhere; skipping this run", op.name);
            return null;
        }
        return lease.get();
    }

    private void end(Operation op, LockLease lease, boolean wasLost, Duration ran) {
        if (wasLost || !lease.isValid()) {
            LOG.warnf("@LockedScheduled '%s': the lock was lost while the method ran (%d ms); another instance may "
                    + "have run meanwhile", op.name, ran.toMillis());
            try {
                lease.release();
            } catch (LockLostException | LockUnavailableException expected) {
                // the loss is what we just reported; the release only cleans up
            }
            return;
        }
        Duration rest = op.lockAtLeastFor.minus(ran);
        if (rest.isNegative() || rest.isZero()) {
            DelayedReleases.release(lease);
        } else {
            delayedReleases.releaseAfter(lease, rest);
        }
    }

    private static Operation operation(Method method) {
        LockedScheduled a = method.getAnnotation(LockedScheduled.class);
        String where = "@LockedScheduled on " + method.toGenericString();
        if (a == null) {
            throw new IllegalStateException(where + ": @LockedScheduled belongs on the method itself, not its class");
        }
        if (method.getReturnType() != void.class) {
            throw new IllegalStateException(where + ": the method must return void (a skipped run has no result)");
        }
        String name = a.name().isEmpty() ? method.getDeclaringClass().getSimpleName() + "." + method.getName()
                : a.name();
        Duration atMost = a.lockAtMostFor().isBlank() ? null
                : DurationText.parse(where + " lockAtMostFor", a.lockAtMostFor());
        Duration atLeast = DurationText.parse(where + " lockAtLeastFor", a.lockAtLeastFor());
        if (atMost != null && atMost.isZero()) {
            throw new IllegalArgumentException(where + ": lockAtMostFor must be positive");
        }
        if (atMost != null && atLeast.compareTo(atMost) > 0) {
            throw new IllegalArgumentException(String.format("%s: lockAtLeastFor (%s) must not exceed lockAtMostFor "
                    + "(%s)", where, atLeast, atMost));
        }
        return new Operation(name, atMost, atLeast, a.onLost());
    }

    private static final class Operation {
        final String name;
        final Duration lockAtMostFor;
        final Duration lockAtLeastFor;
        final LockedScheduled.OnLost onLost;

        Operation(String name, Duration lockAtMostFor, Duration lockAtLeastFor, LockedScheduled.OnLost onLost) {
            this.name = name;
            this.lockAtMostFor = lockAtMostFor;
            this.lockAtLeastFor = lockAtLeastFor;
            this.onLost = onLost;
        }
    }

    /**
     * One run's state, so that a loss interrupts only the run it belongs to: RUNNING until the method returns
     * (then DONE) or the lease is lost (then LOST, and with interruption INTERRUPTING until the interrupt is sent).
     */
    private static final class Run {
        private static final int RUNNING = 0;
        private static final int DONE = 1;
        private static final int INTERRUPTING = 2;
        private static final int LOST = 3;

        private final Thread thread;
        private final boolean interrupt;
        private final AtomicInteger state = new AtomicInteger(RUNNING);

        Run(Thread thread, boolean interrupt) {
            this.thread = thread;
            this.interrupt = interrupt;
        }

        /** On a Latchkey thread: the lease was lost. */
        void lost() {
            if (interrupt) {
                if (state.compareAndSet(RUNNING, INTERRUPTING)) {
                    thread.interrupt();
                    state.set(LOST);
                }
            } else {
                state.compareAndSet(RUNNING, LOST);
            }
        }

        /** On the running thread, once the method returned: whether the lease was lost during the run. */
        boolean finish() {
            if (state.compareAndSet(RUNNING, DONE)) {
                return false;
            }
            if (interrupt) {
                while (state.get() == INTERRUPTING) {
                    Thread.onSpinWait(); // the other thread is between its CAS and interrupt(): a few instructions
                }
                Thread.interrupted(); // our interrupt must not reach the scheduler's next task
            }
            return true;
        }
    }
}
