package io.latchkey.integration;

import io.latchkey.LockEventListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several {@link LockEventListener} beans as the one listener a client takes: each event goes to every one, in order;
 * one that throws does not keep it from the others (the failure is logged). It forwards {@code timedOutHeldBy} only if
 * one of them overrides it, so that a timed-out wait asks for the holder only when someone listens.
 */
public class CompositeLockEventListener implements LockEventListener {

    private static final Logger LOG = LoggerFactory.getLogger(CompositeLockEventListener.class);

    private final List<LockEventListener> listeners;

    private CompositeLockEventListener(List<LockEventListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /**
     * {@return one listener for {@code listeners}} {@link LockEventListener#NONE} for none, the listener itself for
     * one, else a composite that calls each in this order.
     *
     * @param listeners the listeners, in the order they are called
     */
    public static LockEventListener of(List<LockEventListener> listeners) {
        if (listeners.isEmpty()) {
            return LockEventListener.NONE;
        }
        if (listeners.size() == 1) {
            return listeners.get(0);
        }
        return listeners.stream().anyMatch(CompositeLockEventListener::wantsHolder)
                ? new WithHolder(listeners) : new CompositeLockEventListener(listeners);
    }

    private static boolean wantsHolder(LockEventListener l) {
        try {
            return l.getClass().getMethod("timedOutHeldBy", String.class, Duration.class, io.latchkey.LockHolder.class)
                    .getDeclaringClass() != LockEventListener.class;
        } catch (NoSuchMethodException | SecurityException e) {
            return true;
        }
    }

    /** The composite of listeners of which one at least wants to know who held a lock after a timed-out wait. */
    private static final class WithHolder extends CompositeLockEventListener {

        private WithHolder(List<LockEventListener> listeners) {
            super(listeners);
        }

        @Override
        public void timedOutHeldBy(String lockName, Duration waited, io.latchkey.LockHolder holder) {
            each(l -> l.timedOutHeldBy(lockName, waited, holder));
        }
    }

    @Override
    public void acquired(String lockName, Duration waited) {
        each(l -> l.acquired(lockName, waited));
    }

    @Override
    public void timedOut(String lockName, Duration waited) {
        each(l -> l.timedOut(lockName, waited));
    }

    @Override
    public void released(String lockName, Duration held) {
        each(l -> l.released(lockName, held));
    }

    @Override
    public void lost(String lockName) {
        each(l -> l.lost(lockName));
    }

    @Override
    public void lost(String lockName, String reason) {
        each(l -> l.lost(lockName, reason));
    }

    @Override
    public AcquireWait waitStarted(String lockName) {
        List<AcquireWait> waits = new ArrayList<>(listeners.size());
        each(l -> {
            AcquireWait w = l.waitStarted(lockName);
            if (w != null) {
                waits.add(w);
            }
        });
        if (waits.isEmpty()) {
            return null;
        }
        return new AcquireWait() {
            @Override
            public void acquired(long fencingToken, Duration waited) {
                eachWait(waits, w -> w.acquired(fencingToken, waited));
            }

            @Override
            public void timedOut(Duration waited) {
                eachWait(waits, w -> w.timedOut(waited));
            }

            @Override
            public void failed(Throwable cause, Duration waited) {
                eachWait(waits, w -> w.failed(cause, waited));
            }
        };
    }

    @Override
    public LockEventListener forBackend(String backend) {
        List<LockEventListener> bound = new ArrayList<>(listeners.size());
        for (LockEventListener listener : listeners) {
            LockEventListener b = null;
            try {
                b = listener.forBackend(backend);
            } catch (RuntimeException e) {
                LOG.warn("LockEventListener {} failed", listener, e);
            }
            bound.add(b != null ? b : listener);
        }
        return of(bound);
    }

    @Override
    public void renewed(int leases, Duration took) {
        each(l -> l.renewed(leases, took));
    }

    private static void eachWait(List<AcquireWait> waits, Consumer<AcquireWait> event) {
        for (AcquireWait wait : waits) {
            try {
                event.accept(wait);
            } catch (RuntimeException e) {
                LOG.warn("LockEventListener.AcquireWait {} failed", wait, e);
            }
        }
    }

    final void each(Consumer<LockEventListener> event) {
        for (LockEventListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                LOG.warn("LockEventListener {} failed", listener, e);
            }
        }
    }
}
