package io.latchkey.micronaut;

import io.latchkey.LockEventListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Several {@link LockEventListener} beans as one: each event goes to each, in bean order. */
final class CompositeLockEventListener implements LockEventListener {

    private final List<LockEventListener> listeners;

    CompositeLockEventListener(List<LockEventListener> listeners) {
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
        for (LockEventListener listener : listeners) {
            AcquireWait wait = listener.waitStarted(lockName);
            if (wait != null) {
                waits.add(wait);
            }
        }
        if (waits.isEmpty()) {
            return null;
        }
        return waits.size() == 1 ? waits.get(0) : new AcquireWait() {
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
        for (LockEventListener listener : listeners) {
            LockEventListener forBackend = listener.forBackend(backend);
            each.add(forBackend == null ? listener : forBackend);
        }
        return new CompositeLockEventListener(each);
    }
}
