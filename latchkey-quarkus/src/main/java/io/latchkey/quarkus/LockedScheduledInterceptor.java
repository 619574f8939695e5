package io.latchkey.quarkus;

import io.latchkey.LockClient;
import io.latchkey.integration.ScheduledLock;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/** The interceptor behind {@link LockedScheduled}: try the lock once, run or skip, release now or after lockAtLeastFor. */
@LockedScheduled
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
class LockedScheduledInterceptor {

    private static final Logger LOG = Logger.getLogger(LockedScheduledInterceptor.class);

    private final Map<Method, ScheduledLock> operations = new ConcurrentHashMap<>();

    @Inject
    LockClient client;

    @Inject
    DelayedReleases delayedReleases;

    @AroundInvoke
    Object around(InvocationContext context) throws Exception {
        ScheduledLock op = operations.computeIfAbsent(context.getMethod(), LockedScheduledInterceptor::operation);
        if (delayedReleases.stopping()) {
            // the scheduler may fire once more while the application stops; its client is about to close
            LOG.debugf("@LockedScheduled '%s': the application is stopping; skipping this run", op.name());
            return null;
        }
        return op.run(client, delayedReleases.releases(), context::proceed);
    }

    private static ScheduledLock operation(Method method) {
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
        return ScheduledLock.of("@LockedScheduled", where, name,
                a.lockAtMostFor().isBlank() ? null : a.lockAtMostFor(), a.lockAtLeastFor(),
                a.onLost() == LockedScheduled.OnLost.INTERRUPT);
    }
}
