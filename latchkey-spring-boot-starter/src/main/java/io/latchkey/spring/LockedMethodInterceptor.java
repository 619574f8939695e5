package io.latchkey.spring;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.integration.CurrentLease;
import io.latchkey.integration.LockedCall;
import io.micrometer.observation.Observation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The advice behind {@link Locked}: evaluates the name, takes a lease on the lock, runs the method with the lease as
 * {@link LockedRun#currentLease()}, releases the lease. A nested {@code @Locked} call on a name this thread already
 * holds through {@code @Locked} runs under the outer lease.
 */
final class LockedMethodInterceptor implements MethodInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(LockedMethodInterceptor.class);

    private final Supplier<LockClient> client;
    private final BeanFactory beanFactory;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<Method, LockedOperation> operations = new ConcurrentHashMap<>();

    private final LockObservations observations;
    private final ShutdownRef shutdown;

    LockedMethodInterceptor(Supplier<LockClient> client, BeanFactory beanFactory) {
        this(client, beanFactory, LockObservations.none());
    }

    LockedMethodInterceptor(Supplier<LockClient> client, BeanFactory beanFactory, LockObservations observations) {
        this(client, beanFactory, observations, () -> null);
    }

    LockedMethodInterceptor(Supplier<LockClient> client, BeanFactory beanFactory, LockObservations observations,
                            Supplier<LatchkeyShutdown> shutdown) {
        this.client = client;
        this.beanFactory = beanFactory;
        this.observations = observations;
        this.shutdown = new ShutdownRef(shutdown);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Class<?> targetClass = invocation.getThis() == null ? null : AopUtils.getTargetClass(invocation.getThis());
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
        LockedOperation operation = operations.computeIfAbsent(method, this::operation);
        if (operation == null) {
            return invocation.proceed();
        }
        String name = operation.name(method, invocation.getArguments(), invocation.getThis());
        LockLease held = CurrentLease.heldByLocked(name);
        if (held != null) {
            // a @Locked method calling another one on the same name on this thread: it already holds the lock
            return LockedCall.reenter(held, invocation::proceed);
        }
        LatchkeyShutdown stopper = shutdown.get();
        LatchkeyShutdown.Work work = null;
        if (stopper != null) {
            work = stopper.enter("@Locked " + method.getDeclaringClass().getSimpleName() + "." + method.getName(),
                    name);
            if (work == null) {
                throw new LockUnavailableException(String.format("@Locked %s: not started on lock '%s': the "
                        + "application is shutting down", method.toGenericString(), name));
            }
        }
        try {
            return lockAndProceed(invocation, operation, method, name);
        } finally {
            if (work != null) {
                stopper.exit(work);
            }
        }
    }

    private Object lockAndProceed(MethodInvocation invocation, LockedOperation operation, Method method,
                                  String name) throws Throwable {
        DistributedLock lock = client.get().lock(name);
        Observation acquire = observations.startAcquire(name, "locked");
        LockLease lease;
        try {
            lease = acquire(lock, operation, method);
        } catch (LockNotAcquiredException e) {
            LockObservations.endAcquire(acquire, "timeout", null);
            throw e;
        } catch (Throwable t) {
            LockObservations.endAcquire(acquire, "error", t);
            throw t;
        }
        LockObservations.endAcquire(acquire, "acquired", null);
        Observation hold = observations.startHold(name, "locked", lease.fencingToken());
        try {
            return proceedAndRelease(invocation, lease, operation, method, name, hold);
        } catch (Throwable t) {
            hold.error(t);
            throw t;
        } finally {
            hold.stop();
        }
    }

    private static Object proceedAndRelease(MethodInvocation invocation, LockLease lease,
                                            LockedOperation operation, Method method, String name, Observation hold)
            throws Throwable {
        return LockedCall.run(lease, operation.failIfLost, lost -> {
            if (ShutdownRef.closedByUs(lost)) {
                LOG.warn("@Locked {}: lock '{}' was released on shutdown while the method still ran; returning its "
                        + "result anyway", method.toGenericString(), name);
            } else {
                LOG.warn("@Locked {}: lock '{}' was lost while the method ran; returning its result anyway",
                        method.toGenericString(), name, lost);
            }
        }, () -> {
            try (Observation.Scope scope = hold.openScope()) {
                return invocation.proceed();
            }
        });
    }

    private static LockLease acquire(DistributedLock lock, LockedOperation operation, Method method)
            throws InterruptedException {
        if (operation.waitTime.isNegative()) {
            return LockedCall.acquireUninterruptibly(lock,
                    operation.leaseTime.isNegative() ? null : operation.leaseTime);
        }
        return LockedCall.tryAcquire(lock, operation.waitTime,
                operation.leaseTime.isNegative() ? null : operation.leaseTime,
                Arrays.asList(method.getExceptionTypes()).contains(InterruptedException.class),
                (waited, interrupt) -> interrupt != null
                        ? new LockNotAcquiredException(lock.name(), operation.waitTime, waited, interrupt)
                        : new LockNotAcquiredException(lock.name(), operation.waitTime, waited, null, holderOf(lock)));
    }

    /**
     * Who holds {@code lock}, for the message of a wait that ran out: one query, bounded by the operation timeout,
     * on the failure path only; {@code null} if the lock is free by now or the backend cannot tell or answer.
     */
    private static io.latchkey.LockHolder holderOf(DistributedLock lock) {
        try {
            return lock.holder().orElse(null);
        } catch (RuntimeException e) {
            LOG.debug("could not ask who holds lock '{}'", lock.name(), e);
            return null;
        }
    }

    private LockedOperation operation(Method method) {
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        if (locked == null) {
            return null;
        }
        Expression expression;
        try {
            expression = parser.parseExpression(locked.name());
        } catch (ParseException e) {
            throw new IllegalArgumentException(String.format("@Locked name on %s is not a valid SpEL expression: %s",
                    method.toGenericString(), e.getMessage()), e);
        }
        return new LockedOperation(locked.name(), expression, toDuration(locked.waitTime(), locked),
                toDuration(locked.leaseTime(), locked), locked.failIfLost());
    }

    private static Duration toDuration(long amount, Locked locked) {
        return amount < 0 ? Duration.ofNanos(-1) : Duration.ofNanos(locked.timeUnit().toNanos(amount));
    }

    /** One annotated method, parsed once. */
    private final class LockedOperation {
        final String source;
        final Expression expression;
        final Duration waitTime;
        final Duration leaseTime;
        final boolean failIfLost;

        LockedOperation(String source, Expression expression, Duration waitTime, Duration leaseTime,
                        boolean failIfLost) {
            this.source = source;
            this.expression = expression;
            this.waitTime = waitTime;
            this.leaseTime = leaseTime;
            this.failIfLost = failIfLost;
        }

        String name(Method method, Object[] args, Object target) {
            MethodBasedEvaluationContext context =
                    new MethodBasedEvaluationContext(target, method, args, parameterNames);
            if (beanFactory != null) {
                context.setBeanResolver(new BeanFactoryResolver(beanFactory));
            }
            Object value;
            try {
                value = expression.getValue(context);
            } catch (EvaluationException e) {
                throw new IllegalArgumentException(String.format(
                        "@Locked name \"%s\" on %s could not be evaluated (a constant name needs quotes, e.g. "
                                + "\"'report'\"): %s", source, method.toGenericString(), e.getMessage()), e);
            }
            if (value == null || value.toString().isEmpty()) {
                throw new IllegalArgumentException(String.format(
                        "@Locked name \"%s\" on %s evaluated to %s; a lock name must not be empty", source,
                        method.toGenericString(), value == null ? "null" : "an empty string"));
            }
            return value.toString();
        }
    }
}
