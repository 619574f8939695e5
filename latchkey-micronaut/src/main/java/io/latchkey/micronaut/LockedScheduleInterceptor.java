package io.latchkey.micronaut;

import io.latchkey.LockClient;
import io.latchkey.integration.ScheduledLock;
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
    private final Map<ExecutableMethod<?, ?>, ScheduledLock> operations = new ConcurrentHashMap<>();

    LockedScheduleInterceptor(LockClient client, LockedWork work) {
        this.client = client;
        this.work = work;
    }

    @Override
    public void process(BeanDefinition<?> beanDefinition, ExecutableMethod<?, ?> method) {
        operation(method);
    }

    @Override
    public Object intercept(MethodInvocationContext<Object, Object> context) {
        ScheduledLock op = operations.computeIfAbsent(context.getExecutableMethod(),
                LockedScheduleInterceptor::operation);
        if (!work.enter()) {
            LOG.debug("@LockedSchedule '{}': the application context is stopping; skipping this run", op.name());
            return null;
        }
        try {
            return op.run(client, work.delayedReleases(), context::proceed);
        } finally {
            work.exit();
        }
    }

    /** One {@code @LockedSchedule} method, checked once. */
    private static ScheduledLock operation(ExecutableMethod<?, ?> method) {
        String where = "@LockedSchedule on " + LockedOperation.describe(method);
        if (method.getReturnType().getType() != void.class) {
            throw new IllegalArgumentException(where + ": the method must return void (a skipped run has no "
                    + "result)");
        }
        String name = method.stringValue(LockedSchedule.class, "name").orElse("");
        if (name.isBlank()) {
            name = method.getDeclaringType().getSimpleName() + "." + method.getMethodName();
        }
        LockedSchedule.OnLost onLost = method.enumValue(LockedSchedule.class, "onLost", LockedSchedule.OnLost.class)
                .orElse(LockedSchedule.OnLost.FLAG);
        String atMost = method.stringValue(LockedSchedule.class, "lockAtMostFor").orElse("");
        return ScheduledLock.of("@LockedSchedule", where, name, atMost.isBlank() ? null : atMost,
                method.stringValue(LockedSchedule.class, "lockAtLeastFor").orElse("0s"),
                onLost == LockedSchedule.OnLost.INTERRUPT);
    }
}
