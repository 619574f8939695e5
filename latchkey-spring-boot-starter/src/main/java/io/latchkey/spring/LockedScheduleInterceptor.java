package io.latchkey.spring;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.latchkey.integration.CurrentLease;
import io.latchkey.integration.DelayedReleases;
import io.latchkey.integration.ScheduledLock;
import io.micrometer.observation.Observation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;

/** The advice behind {@link LockedSchedule}: try the lock once, run or skip, release now or after lockAtLeastFor. */
final class LockedScheduleInterceptor implements MethodInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(LockedScheduleInterceptor.class);

    private final Supplier<LockClient> client;
    private final BeanFactory beanFactory;
    private final LockObservations observations;
    private final Supplier<DelayedReleases> delayedReleases;
    private final Map<Method, ScheduledLock> operations = new ConcurrentHashMap<>();
    private final ShutdownRef shutdown;

    LockedScheduleInterceptor(Supplier<LockClient> client, BeanFactory beanFactory, LockObservations observations,
                              Supplier<DelayedReleases> delayedReleases) {
        this(client, beanFactory, observations, delayedReleases, () -> null);
    }

    LockedScheduleInterceptor(Supplier<LockClient> client, BeanFactory beanFactory, LockObservations observations,
                              Supplier<DelayedReleases> delayedReleases, Supplier<LatchkeyShutdown> shutdown) {
        this.client = client;
        this.beanFactory = beanFactory;
        this.observations = observations;
        this.delayedReleases = delayedReleases;
        this.shutdown = new ShutdownRef(shutdown);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Class<?> targetClass = invocation.getThis() == null ? null : AopUtils.getTargetClass(invocation.getThis());
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
        ScheduledLock op = operations.computeIfAbsent(method, this::operation);
        if (op == null) {
            return invocation.proceed();
        }
        LatchkeyShutdown stopper = shutdown.get();
        LatchkeyShutdown.Work work = null;
        if (stopper != null) {
            work = stopper.enter("@LockedSchedule " + method.getDeclaringClass().getSimpleName() + "."
                    + method.getName(), op.name());
            if (work == null) {
                LOG.info("@LockedSchedule '{}': the application is shutting down; skipping this run", op.name());
                return null;
            }
        }
        try {
            return run(invocation, op, stopper);
        } finally {
            if (work != null) {
                stopper.exit(work);
            }
        }
    }

    private Object run(MethodInvocation invocation, ScheduledLock op, LatchkeyShutdown stopper) throws Throwable {
        LockLease lease = tryAcquire(op);
        if (lease == null) {
            return null;
        }
        long start = System.nanoTime();
        ScheduledLock.Run run = op.start(lease);
        Observation hold = observations.startHold(op.name(), "schedule", lease.fencingToken());
        LockLease previous = CurrentLease.enter(lease);
        try (Observation.Scope scope = hold.openScope()) {
            return invocation.proceed();
        } catch (Throwable t) {
            hold.error(t);
            throw t;
        } finally {
            CurrentLease.exit(previous);
            boolean wasLost = run.finish();
            hold.stop();
            end(op, lease, wasLost, Duration.ofNanos(System.nanoTime() - start), stopper);
        }
    }

    /** The lease, or null when another node holds the lock (a quiet skip). */
    private LockLease tryAcquire(ScheduledLock op) {
        DistributedLock lock = client.get().lock(op.name());
        Observation acquire = observations.startAcquire(op.name(), "schedule");
        Optional<LockLease> lease;
        try {
            lease = op.tryAcquire(lock);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LockObservations.endAcquire(acquire, "error", e);
            LOG.debug("@LockedSchedule '{}': interrupted while trying the lock; skipping this run", op.name());
            return null;
        } catch (RuntimeException e) {
            LockObservations.endAcquire(acquire, "error", e);
            throw e;
        }
        LockObservations.endAcquire(acquire, lease.isPresent() ? "acquired" : "skipped", null);
        if (lease.isEmpty()) {
            LOG.debug("@LockedSchedule '{}': held elsewhere; skipping this run", op.name());
            return null;
        }
        return lease.get();
    }

    private void end(ScheduledLock op, LockLease lease, boolean wasLost, Duration ran, LatchkeyShutdown stopper) {
        boolean stopping = stopper != null && stopper.isStopping();
        if (stopping && (wasLost || !lease.isValid())) {
            try {
                lease.release();
            } catch (LockLostException e) {
                if (ShutdownRef.closedByUs(e)) {
                    LOG.warn("@LockedSchedule '{}': lock released on shutdown while the method still ran ({} ms): "
                            + "the lock client closed before it ended", op.name(), ran.toMillis());
                    return;
                }
                LOG.warn("@LockedSchedule '{}': the lock was lost while the method ran ({} ms): {}", op.name(),
                        ran.toMillis(), e.getMessage());
            } catch (LockUnavailableException e) {
                LOG.warn("@LockedSchedule '{}': lock not released on shutdown ({}); it expires with its lease",
                        op.name(), e.getMessage());
            }
            return;
        }
        if (stopping && op.lockAtLeastFor().compareTo(ran) <= 0) {
            try {
                lease.release();
                LOG.info("@LockedSchedule '{}': released lock on shutdown after the method ended ({} ms)", op.name(),
                        ran.toMillis());
            } catch (LockLostException | LockUnavailableException e) {
                LOG.warn("@LockedSchedule '{}': lock not released on shutdown: {}", op.name(), e.getMessage());
            }
            return;
        }
        op.end(lease, wasLost, ran, delayedReleases.get());
    }

    private ScheduledLock operation(Method method) {
        LockedSchedule a = AnnotatedElementUtils.findMergedAnnotation(method, LockedSchedule.class);
        if (a == null) {
            return null;
        }
        String where = "@LockedSchedule on " + method.toGenericString();
        if (method.getReturnType() != void.class) {
            throw new IllegalStateException(where + ": the method must return void (a skipped run has no result)");
        }
        String name = a.name().isEmpty()
                ? method.getDeclaringClass().getSimpleName() + "." + method.getName()
                : resolve(a.name());
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(where + ": name resolved to an empty string");
        }
        return ScheduledLock.of("@LockedSchedule", where, name,
                a.lockAtMostFor().isBlank() ? null : resolve(a.lockAtMostFor()), resolve(a.lockAtLeastFor()),
                a.onLost() == LockedSchedule.OnLost.INTERRUPT);
    }

    private String resolve(String value) {
        return beanFactory instanceof ConfigurableBeanFactory
                ? ((ConfigurableBeanFactory) beanFactory).resolveEmbeddedValue(value)
                : value;
    }

    /** Validates every {@code @LockedSchedule} method of {@code type} now (at proxy time, i.e. at startup). */
    void validate(Class<?> type) {
        for (Method m : type.getMethods()) {
            operations.computeIfAbsent(AopUtils.getMostSpecificMethod(m, type), this::operation);
        }
        for (Method m : type.getDeclaredMethods()) {
            operations.computeIfAbsent(m, this::operation);
        }
    }
}
