package io.latchkey.micronaut;

import io.latchkey.LockNameTemplate;
import io.latchkey.integration.DurationText;
import io.micronaut.core.type.Argument;
import io.micronaut.inject.ExecutableMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** One {@link Locked} method, parsed once: its name template, wait and lease. */
final class LockedOperation {

    /** Marks "no bound": wait as long as it takes, or renew the lease with the watchdog. */
    static final Duration UNBOUNDED = Duration.ofNanos(-1);

    final String where;
    final LockNameTemplate name;
    final Duration waitTime;
    final Duration leaseTime;
    final boolean failIfLost;

    private LockedOperation(String where, LockNameTemplate name, Duration waitTime, Duration leaseTime,
                            boolean failIfLost) {
        this.where = where;
        this.name = name;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.failIfLost = failIfLost;
    }

    /**
     * Parses the {@code @Locked} of {@code method}.
     *
     * @throws IllegalArgumentException naming the method, for a bad template or duration or an asynchronous return
     *         type
     */
    static LockedOperation of(ExecutableMethod<?, ?> method) {
        String where = "@Locked on " + describe(method);
        rejectAsync(where, method);
        String template = method.stringValue(Locked.class, "name").orElse("");
        List<String> parameters = new ArrayList<>();
        for (Argument<?> argument : method.getArguments()) {
            parameters.add(argument.getName());
        }
        LockNameTemplate name;
        try {
            name = LockNameTemplate.parse(template, parameters);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        Duration wait = duration(where + " waitTime", method.stringValue(Locked.class, "waitTime").orElse(""));
        Duration lease = duration(where + " leaseTime", method.stringValue(Locked.class, "leaseTime").orElse(""));
        if (lease.isZero()) {
            throw new IllegalArgumentException(where + ": leaseTime must be positive (leave it empty for a lease the "
                    + "watchdog renews)");
        }
        boolean failIfLost = method.booleanValue(Locked.class, "failIfLost").orElse(true);
        return new LockedOperation(where, name, wait, lease, failIfLost);
    }

    private static Duration duration(String what, String text) {
        return text.isBlank() ? UNBOUNDED : DurationText.parse(what, text);
    }

    /** A lock held until the method returns cannot cover work that goes on after it returned. */
    static void rejectAsync(String where, ExecutableMethod<?, ?> method) {
        Class<?> type = method.getReturnType().getType();
        String async = asyncKind(type);
        if (async != null) {
            throw new IllegalArgumentException(String.format("%s: the method returns %s (%s), whose work goes on after "
                    + "the method returned, when the lock would already be released; lock inside the asynchronous "
                    + "work instead (LockClient, or latchkey-reactor's ReactiveLockClient)", where, type.getName(),
                    async));
        }
    }

    private static String asyncKind(Class<?> type) {
        if (type == null || type.isPrimitive()) {
            return null;
        }
        if (java.util.concurrent.CompletionStage.class.isAssignableFrom(type)
                || java.util.concurrent.Future.class.isAssignableFrom(type)) {
            return "a future";
        }
        if (java.util.concurrent.Flow.Publisher.class.isAssignableFrom(type) || implementsNamed(type,
                "org.reactivestreams.Publisher")) {
            return "a reactive publisher";
        }
        return null;
    }

    private static boolean implementsNamed(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
            for (Class<?> i : c.getInterfaces()) {
                if (implementsNamed(i, name)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code com.example.Orders.ship(long orderId)}: how errors name a method. */
    static String describe(ExecutableMethod<?, ?> method) {
        StringBuilder text = new StringBuilder(method.getDeclaringType().getName()).append('.')
                .append(method.getMethodName()).append('(');
        Argument<?>[] arguments = method.getArguments();
        for (int i = 0; i < arguments.length; i++) {
            text.append(i == 0 ? "" : ", ").append(arguments[i].getType().getSimpleName()).append(' ')
                    .append(arguments[i].getName());
        }
        return text.append(')').toString();
    }
}
