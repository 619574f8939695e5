package io.latchkey.micronaut;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.integration.CurrentLease;
import io.latchkey.integration.LockedCall;
import io.micronaut.aop.InterceptorBean;
import io.micronaut.aop.MethodInterceptor;
import io.micronaut.aop.MethodInvocationContext;
import io.micronaut.context.processor.ExecutableMethodProcessor;
import io.micronaut.inject.BeanDefinition;
import io.micronaut.inject.ExecutableMethod;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The advice behind {@link Locked}: renders the name, takes a lease on the lock, runs the method with the lease as
 * {@link LockedRun#currentLease()}, releases the lease. As an {@link ExecutableMethodProcessor} it parses every
 * {@code @Locked} method when the context starts, so that a bad template, duration or return type fails the start.
 */
@Singleton
@InterceptorBean(Locked.class)
final class LockedInterceptor implements MethodInterceptor<Object, Object>, ExecutableMethodProcessor<Locked> {

    private static final Logger LOG = LoggerFactory.getLogger(LockedInterceptor.class);

    private final LockClient client;
    private final LockedWork work;
    private final Map<ExecutableMethod<?, ?>, LockedOperation> operations = new ConcurrentHashMap<>();

    LockedInterceptor(LockClient client, LockedWork work) {
        this.client = client;
        this.work = work;
    }

    @Override
    public void process(BeanDefinition<?> beanDefinition, ExecutableMethod<?, ?> method) {
        LockedOperation.of(method);
    }

    @Override
    public Object intercept(MethodInvocationContext<Object, Object> context) {
        LockedOperation op = operations.computeIfAbsent(context.getExecutableMethod(), LockedOperation::of);
        String name = op.name.render(context.getParameterValues());
        LockLease held = CurrentLease.heldByLocked(name);
        if (held != null) {
            // a @Locked method calling another one on the same name on this thread: it already holds the lock
            return LockedCall.reenter(held, context::proceed);
        }
        if (!work.enter()) {
            throw LockNotAcquiredException.shuttingDown(name, op.waitTime);
        }
        try {
            LockLease lease = acquire(client.lock(name), op);
            return proceedAndRelease(context, lease, op, name);
        } finally {
            work.exit();
        }
    }

    private static Object proceedAndRelease(MethodInvocationContext<Object, Object> context, LockLease lease,
                                            LockedOperation op, String name) {
        return LockedCall.run(lease, op.failIfLost, lost -> LOG.warn(
                "{}: lock '{}' was lost while the method ran; returning its result anyway", op.where, name, lost),
                context::proceed);
    }

    private static LockLease acquire(DistributedLock lock, LockedOperation op) {
        if (op.waitTime.isNegative()) {
            return LockedCall.acquireUninterruptibly(lock, op.leaseTime.isNegative() ? null : op.leaseTime);
        }
        return LockedCall.tryAcquire(lock, op.waitTime, op.leaseTime.isNegative() ? null : op.leaseTime,
                (waited, interrupt) -> new LockNotAcquiredException(lock.name(), op.waitTime, waited, interrupt));
    }
}
