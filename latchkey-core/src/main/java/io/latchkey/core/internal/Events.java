package io.latchkey.core.internal;

import io.latchkey.LockEventListener;
import io.latchkey.LockHolder;
import io.latchkey.core.TimeSource;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls the user's {@link LockEventListener}, so that a failing listener can never break the engine. */
final class Events {
    private static final Logger log = LoggerFactory.getLogger(Events.class);

    private final LockEventListener listener;

    private final boolean wantsHolder;

    Events(LockEventListener listener, String backendName) {
        LockEventListener bound = null;
        try {
            bound = listener.forBackend(backendName);
        } catch (RuntimeException e) {
            log.warn("LockEventListener.forBackend threw for backend '{}'; its events go to the listener itself",
                    backendName, e);
        }
        this.listener = bound != null ? bound : listener;
        this.wantsHolder = overrides(this.listener, "timedOutHeldBy", String.class, Duration.class, LockHolder.class);
    }

    private static boolean overrides(LockEventListener listener, String method, Class<?>... parameters) {
        try {
            return listener.getClass().getMethod(method, parameters).getDeclaringClass() != LockEventListener.class;
        } catch (NoSuchMethodException | SecurityException e) {
            return true;
        }
    }

    /**
     * On the caller's thread, before a lock's acquire (not a re-entry) sends its first attempt: what the listener
     * wants told of its end, or {@code null}.
     */
    LockEventListener.AcquireWait waitStarted(String name) {
        try {
            return listener.waitStarted(name);
        } catch (RuntimeException e) {
            log.warn("LockEventListener.waitStarted threw for lock '{}'", name, e);
            return null;
        }
    }

    /**
     * Tells {@code wait} how {@code w} ends, when its future completes: granted (a {@link Hold}), ran out, cancelled
     * or failed. The waiter's state is read after its future completed, which happens after the state was written.
     */
    void watch(Waiter<Hold> w, LockEventListener.AcquireWait wait, TimeSource time) {
        w.future.whenComplete((result, failure) -> {
            try {
                if (result != null) {
                    Hold h = result;
                    wait.acquired(h.grant.fencingToken(), waited(h.acquiredAtNanos - w.startNanos));
                } else if (failure != null) {
                    wait.failed(failure, waited(time.nanoTime() - w.startNanos));
                } else if (w.state() == Waiter.State.TIMED_OUT) {
                    wait.timedOut(waited(time.nanoTime() - w.startNanos));
                } else {
                    wait.failed(new CancellationException("the acquire of lock '" + w.nameState.name
                            + "' was cancelled or interrupted"), waited(time.nanoTime() - w.startNanos));
                }
            } catch (RuntimeException e) {
                log.warn("LockEventListener.AcquireWait threw for lock '{}'", w.nameState.name, e);
            }
        });
    }

    /** An acquire that {@link #waitStarted started} failed before it had a waiter (the client closed). */
    void failedToStart(LockEventListener.AcquireWait wait, String name, RuntimeException failure) {
        try {
            wait.failed(failure, Duration.ZERO);
        } catch (RuntimeException e) {
            log.warn("LockEventListener.AcquireWait threw for lock '{}'", name, e);
        }
    }

    private static Duration waited(long nanos) {
        return Duration.ofNanos(Math.max(0, nanos));
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

    void lost(String name, String reason) {
        try {
            listener.lost(name, reason);
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
