package io.latchkey.micronaut;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.latchkey.integration.CurrentLease;
import io.latchkey.integration.DelayedReleases;
import io.latchkey.integration.DurationText;
import io.micronaut.aop.InterceptorBean;
import io.micronaut.aop.MethodInterceptor;
import io.micronaut.aop.MethodInvocationContext;
import io.micronaut.context.processor.ExecutableMethodProcessor;
import io.micronaut.inject.BeanDefinition;
import io.micronaut.inject.ExecutableMethod;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The advice behind {@link LockedSchedule}: try the lock once, run or skip, release now or after lockAtLeastFor. As
 * an {@link ExecutableMethodProcessor} it checks every {@code @LockedSchedule} method when the context starts.
 */
@Singleton
@InterceptorBean(LockedSchedule.class)
final class LockedScheduleInterceptor implements MethodInterceptor<Object, Object>,
        ExecutableMethodProcessor<LockedSchedule> {

    private static final Logger LOG = LoggerFactory.getLogger(LockedScheduleInterceptor.class);

    private final LockClient client;
    private final LockedWork work;
    private final Map<ExecutableMethod<?, ?>, Operation> operations = new ConcurrentHashMap<>();

    LockedScheduleInterceptor(LockClient client, LockedWork work) {
        this.client = client;
        this.work = work;
    }

    @Override
    public void process(BeanDefinition<?> beanDefinition, ExecutableMethod<?, ?> method) {
        Operation.of(method);
    }

    @Override
    public Object intercept(MethodInvocationContext<Object, Object> context) {
        Operation op = operations.computeIfAbsent(context.getExecutableMethod(), Operation::of);
        if (!work.enter()) {
            LOG.debug("@LockedSchedule '{}': the application context is stopping; skipping this run", op.name);
            return null;
        }
        try {
            LockLease lease = tryAcquire(op);
            if (lease == null) {
                return null;
            }
            long start = System.nanoTime();
            Run run = new Run(Thread.currentThread(), op.onLost == LockedSchedule.OnLost.INTERRUPT);
            lease.onLost(run::lost);
            LockLease previous = CurrentLease.enter(lease);
            try {
                return context.proceed();
            } finally {
                CurrentLease.exit(previous);
                boolean wasLost = run.finish();
                end(op, lease, wasLost, Duration.ofNanos(System.nanoTime() - start));
            }
        } finally {
            work.exit();
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
            LOG.debug("@LockedSchedule '{}': interrupted while trying the lock; skipping this run", op.name);
            return null;
        }
        if (lease.isEmpty()) {
            LOG.debug("@LockedSchedule '{}': held elsewhere; skipping this run", op.name);
            return null;
        }
        return lease.get();
    }

    private void end(Operation op, LockLease lease, boolean wasLost, Duration ran) {
        if (wasLost || !lease.isValid()) {
            LOG.warn("@LockedSchedule '{}': the lock was lost while the method ran ({} ms); another instance may have "
                    + "run meanwhile", op.name, ran.toMillis());
            try {
                lease.release();
            } catch (LockLostException | LockUnavailableException expected) {
                // the loss is what we just reported; the release only cleans up
            }
            return;
        }
        Duration rest = op.lockAtLeastFor.minus(ran);
        if (rest.isNegative() || rest.isZero()) {
            DelayedReleases.release("@LockedSchedule", lease);
        } else {
            work.delayedReleases().releaseAfter(lease, rest);
        }
    }

    /** One {@code @LockedSchedule} method, checked once. */
    private static final class Operation {
        final String name;
        final Duration lockAtMostFor;
        final Duration lockAtLeastFor;
        final LockedSchedule.OnLost onLost;

        private Operation(String name, Duration lockAtMostFor, Duration lockAtLeastFor, LockedSchedule.OnLost onLost) {
            this.name = name;
            this.lockAtMostFor = lockAtMostFor;
            this.lockAtLeastFor = lockAtLeastFor;
            this.onLost = onLost;
        }

        static Operation of(ExecutableMethod<?, ?> method) {
            String where = "@LockedSchedule on " + LockedOperation.describe(method);
            if (method.getReturnType().getType() != void.class) {
                throw new IllegalArgumentException(where + ": the method must return void (a skipped run has no "
                        + "result)");
            }
            String name = method.stringValue(LockedSchedule.class, "name").orElse("");
            if (name.isBlank()) {
                name = method.getDeclaringType().getSimpleName() + "." + method.getMethodName();
            }
            String atMostText = method.stringValue(LockedSchedule.class, "lockAtMostFor").orElse("");
            Duration atMost = atMostText.isBlank() ? null : DurationText.parse(where + " lockAtMostFor", atMostText);
            Duration atLeast = DurationText.parse(where + " lockAtLeastFor",
                    method.stringValue(LockedSchedule.class, "lockAtLeastFor").orElse("0s"));
            if (atMost != null && atMost.isZero()) {
                throw new IllegalArgumentException(where + ": lockAtMostFor must be positive");
            }
            if (atMost != null && atLeast.compareTo(atMost) > 0) {
                throw new IllegalArgumentException(String.format("%s: lockAtLeastFor (%s) must not exceed "
                        + "lockAtMostFor (%s)", where, atLeast, atMost));
            }
            LockedSchedule.OnLost onLost = method.enumValue(LockedSchedule.class, "onLost", LockedSchedule.OnLost.class)
                    .orElse(LockedSchedule.OnLost.FLAG);
            return new Operation(name, atMost, atLeast, onLost);
        }
    }

    /**
     * One run's state, so that a loss interrupts only the run it belongs to: RUNNING until the method returns (then
     * DONE) or the lease is lost (then LOST, and with interruption INTERRUPTING until the interrupt is sent).
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
