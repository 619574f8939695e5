package io.latchkey.quarkus.internal;

import io.latchkey.LockEventListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Several {@link LockEventListener} beans as the one listener a client takes: each event goes to every one, in order. */
public final class CompositeListener implements LockEventListener {

    private final List<LockEventListener> listeners;

    /**
     * Creates the composite.
     *
     * @param listeners the listeners, each called in this order
     */
    public CompositeListener(List<LockEventListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void acquired(String lockName, Duration waited) {
        listeners.forEach(l -> l.acquired(lockName, waited));
    }

    @Override
    public void timedOut(String lockName, Duration waited) {
        listeners.forEach(l -> l.timedOut(lockName, waited));
    }

    @Override
    public void released(String lockName, Duration held) {
        listeners.forEach(l -> l.released(lockName, held));
    }

    @Override
    public void lost(String lockName, String reason) {
        listeners.forEach(l -> l.lost(lockName, reason));
    }

    @Override
    public void renewed(int leases, Duration took) {
        listeners.forEach(l -> l.renewed(leases, took));
    }

    @Override
    public AcquireWait waitStarted(String lockName) {
        List<AcquireWait> waits = new ArrayList<>(listeners.size());
        for (LockEventListener l : listeners) {
            AcquireWait wait = l.waitStarted(lockName);
            if (wait != null) {
                waits.add(wait);
            }
        }
        if (waits.isEmpty()) {
            return null;
        }
        return new AcquireWait() {
            @Override
            public void acquired(long fencingToken, Duration waited) {
                waits.forEach(w -> w.acquired(fencingToken, waited));
            }

            @Override
            public void timedOut(Duration waited) {
                waits.forEach(w -> w.timedOut(waited));
            }

            @Override
            public void failed(Throwable cause, Duration waited) {
                waits.forEach(w -> w.failed(cause, waited));
            }
        };
    }

    @Override
    public LockEventListener forBackend(String backend) {
        List<LockEventListener> each = new ArrayList<>(listeners.size());
        for (LockEventListener l : listeners) {
            LockEventListener forBackend = l.forBackend(backend);
            each.add(forBackend == null ? l : forBackend);
        }
        return new CompositeListener(each);
    }
}
