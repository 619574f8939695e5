package io.latchkey.core.internal;

import io.latchkey.LockEventListener;
import io.latchkey.LockHolder;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls the user's {@link LockEventListener}, so that a failing listener can never break the engine. */
final class Events {
    private static final Logger log = LoggerFactory.getLogger(Events.class);

    private final LockEventListener listener;

    private final boolean wantsHolder;

    Events(LockEventListener listener) {
        this.listener = listener;
        this.wantsHolder = overrides(listener, "timedOutHeldBy", String.class, Duration.class, LockHolder.class);
    }

    private static boolean overrides(LockEventListener listener, String method, Class<?>... parameters) {
        try {
            return listener.getClass().getMethod(method, parameters).getDeclaringClass() != LockEventListener.class;
        } catch (NoSuchMethodException | SecurityException e) {
            return true;
        }
    }

    void acquired(String name, long waitedNanos) {
        try {
            listener.acquired(name, Duration.ofNanos(Math.max(0, waitedNanos)));
        } catch (RuntimeException e) {
            log.warn("LockEventListener.acquired threw for lock '{}'", name, e);
        }
    }

    void timedOut(String name, long waitedNanos) {
        try {
            listener.timedOut(name, Duration.ofNanos(Math.max(0, waitedNanos)));
        } catch (RuntimeException e) {
            log.warn("LockEventListener.timedOut threw for lock '{}'", name, e);
        }
    }

    /** Whether the listener overrides {@code timedOutHeldBy}: only then does a timed-out wait ask for the holder. */
    boolean wantsHolder() {
        return wantsHolder;
    }

    void timedOutHeldBy(String name, long waitedNanos, LockHolder holder) {
        try {
            listener.timedOutHeldBy(name, Duration.ofNanos(Math.max(0, waitedNanos)), holder);
        } catch (RuntimeException e) {
            log.warn("LockEventListener.timedOutHeldBy threw for lock '{}'", name, e);
        }
    }

    void released(String name, long heldNanos) {
        try {
            listener.released(name, Duration.ofNanos(Math.max(0, heldNanos)));
        } catch (RuntimeException e) {
            log.warn("LockEventListener.released threw for lock '{}'", name, e);
        }
    }

    void lost(String name) {
        try {
            listener.lost(name);
        } catch (RuntimeException e) {
            log.warn("LockEventListener.lost threw for lock '{}'", name, e);
        }
    }

    void renewed(int leases, long tookNanos) {
        try {
            listener.renewed(leases, Duration.ofNanos(Math.max(0, tookNanos)));
        } catch (RuntimeException e) {
            log.warn("LockEventListener.renewed threw", e);
        }
    }
}
