package io.latchkey.spring;

import io.latchkey.LockEventListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Sends each event to every {@link LockEventListener} bean; one that throws does not keep it from the others. */
final class CompositeLockEventListener implements LockEventListener {

    private static final Logger LOG = LoggerFactory.getLogger(CompositeLockEventListener.class);

    private final List<LockEventListener> listeners;

    private CompositeLockEventListener(List<LockEventListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    static LockEventListener of(List<LockEventListener> listeners) {
        if (listeners.isEmpty()) {
            return LockEventListener.NONE;
        }
        return listeners.size() == 1 ? listeners.get(0) : new CompositeLockEventListener(listeners);
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
        return new CompositeLockEventListener(bound);
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

    private void each(Consumer<LockEventListener> event) {
        for (LockEventListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                LOG.warn("LockEventListener {} failed", listener, e);
            }
        }
    }
}
