package io.latchkey.quarkus;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockNameTemplate;
import io.latchkey.integration.CurrentLease;
import io.latchkey.integration.DurationText;
import io.latchkey.integration.LockedCall;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The interceptor behind {@link Locked}: renders the name, takes a lease on the lock, runs the method with the lease as
 * {@link LockedRun#currentLease()}, releases the lease. A nested {@code @Locked} call on a name this thread already
 * holds through {@code @Locked} runs under the outer lease.
 */
@Locked(name = "")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
class LockedInterceptor {

    private static final Logger LOG = Logger.getLogger(LockedInterceptor.class);

    private final Map<Method, Operation> operations = new ConcurrentHashMap<>();

    @Inject
    LockClient client;

    @AroundInvoke
    Object around(InvocationContext context) throws Exception {
        Method method = context.getMethod();
        Operation operation = operations.computeIfAbsent(method, LockedInterceptor::operation);
        String name = operation.name(method, context.getParameters());
        LockLease held = CurrentLease.heldByLocked(name);
        if (held != null) {
            // a @Locked method calling another one on the same name on this thread: it already holds the lock
            return LockedCall.reenter(held, context::proceed);
        }
        LockLease lease = acquire(client.lock(name), operation, method);
        return LockedCall.run(lease, operation.failIfLost, lost -> LOG.warnf(lost,
                "@Locked %s: lock '%s' was lost while the method ran; returning its result anyway",
                method.toGenericString(), name), context::proceed);
    }

    private static LockLease acquire(DistributedLock lock, Operation operation, Method method)
            throws InterruptedException {
        if (operation.waitTime == null) {
            return LockedCall.acquireUninterruptibly(lock, operation.leaseTime);
        }
        return LockedCall.tryAcquire(lock, operation.waitTime, operation.leaseTime,
                Arrays.asList(method.getExceptionTypes()).contains(InterruptedException.class),
                (waited, interrupt) -> new LockNotAcquiredException(lock.name(), operation.waitTime, waited, interrupt));
    }

    private static Operation operation(Method method) {
        Locked locked = method.getAnnotation(Locked.class);
        String where = "@Locked on " + method.toGenericString();
        if (locked == null) {
            throw new IllegalStateException(where + ": @Locked belongs on the method itself, not on its class");
        }
        Parameter[] parameters = method.getParameters();
        List<String> names = Arrays.stream(parameters).map(Parameter::getName).collect(Collectors.toList());
        LockNameTemplate template;
        try {
            template = LockNameTemplate.parse(locked.name(), names);
        } catch (IllegalArgumentException e) {
            boolean named = parameters.length == 0 || parameters[0].isNamePresent();
            throw new IllegalArgumentException(where + ": " + e.getMessage()
                    + (named ? "" : " (its class was compiled without -parameters, so its parameters are "
                    + names + ")"), e);
        }
        Duration wait = locked.waitTime().isBlank() ? null : DurationText.parse(where + " waitTime", locked.waitTime());
        Duration lease = locked.leaseTime().isBlank() ? null
                : DurationText.parse(where + " leaseTime", locked.leaseTime());
        if (lease != null && lease.isZero()) {
            throw new IllegalArgumentException(where + ": leaseTime must be positive");
        }
        return new Operation(template, wait, lease, locked.failIfLost());
    }

    /** One annotated method, parsed once. */
    private static final class Operation {
        final LockNameTemplate template;
        final Duration waitTime;
        final Duration leaseTime;
        final boolean failIfLost;

        Operation(LockNameTemplate template, Duration waitTime, Duration leaseTime, boolean failIfLost) {
            this.template = template;
            this.waitTime = waitTime;
            this.leaseTime = leaseTime;
            this.failIfLost = failIfLost;
        }

        String name(Method method, Object[] args) {
            String name = template.render(args);
            if (name.isEmpty()) {
                throw new IllegalArgumentException(String.format(
                        "@Locked name \"%s\" on %s rendered an empty string; a lock name must not be empty",
                        template, method.toGenericString()));
            }
            return name;
        }
    }
}
