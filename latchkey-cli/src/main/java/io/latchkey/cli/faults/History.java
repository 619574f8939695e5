package io.latchkey.cli.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The merged history of a fault run: every worker's events as their output readers deliver them, plus the
 * verifier's fault marks. Also tracks who holds the lock right now (by the workers' own accounts), so that the
 * verifier can aim a pause or a kill at a holder. Thread-safe; nothing blocking runs under its lock.
 */
final class History {

    private final ReentrantLock lock = new ReentrantLock();
    private final List<HistoryEvent> events = new ArrayList<>();
    private final Map<String, Long> holding = new HashMap<>();
    private final Map<String, Long> holdingSince = new HashMap<>();
    private final Map<String, HistoryEvent> latestOf = new HashMap<>();
    private final Map<String, HistoryEvent> samples = new HashMap<>();

    void add(HistoryEvent e) {
        lock.lock();
        try {
            if (e.type() == HistoryEvent.Type.SAMPLE) {
                samples.put(e.actor(), e);
                return;
            }
            events.add(e);
            latestOf.put(e.actor(), e);
            switch (e.type()) {
                case ACQUIRED -> {
                    holding.put(e.actor(), e.token());
                    holdingSince.put(e.actor(), e.nanos());
                }
                case RELEASED, RELEASE_LOST, RELEASE_ERROR, LOST, EXITED -> {
                    holding.remove(e.actor());
                    holdingSince.remove(e.actor());
                }
                default -> {
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The latest resource sample of each worker that sent one (soak runs). */
    Map<String, HistoryEvent> samples() {
        lock.lock();
        try {
            return Map.copyOf(samples);
        } finally {
            lock.unlock();
        }
    }

    /** A worker that holds the lock now and got it at or after {@code sinceNanos}, by its own account. */
    Optional<String> holderSince(long sinceNanos) {
        lock.lock();
        try {
            return holdingSince.entrySet().stream().filter(h -> h.getValue() - sinceNanos >= 0)
                    .map(Map.Entry::getKey).findFirst();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A holder whose latest step is a fenced read at or after {@code sinceNanos}: it is in its "work" between the
     * read and the write, outside any register transaction (a worker paused inside one would block the others'
     * register access, which says nothing about the lock).
     */
    Optional<String> readerSince(long sinceNanos) {
        lock.lock();
        try {
            return latestOf.values().stream().filter(e -> e.type() == HistoryEvent.Type.READ
                    && holding.containsKey(e.actor()) && e.nanos() - sinceNanos >= 0)
                    .map(HistoryEvent::actor).findFirst();
        } finally {
            lock.unlock();
        }
    }

    /** The token {@code worker} holds by its own account, or -1. */
    long heldToken(String worker) {
        lock.lock();
        try {
            return holding.getOrDefault(worker, -1L);
        } finally {
            lock.unlock();
        }
    }

    /** Whether a hold granted after {@code since} has had a write accepted. */
    boolean writeOfGrantAfter(long since) {
        lock.lock();
        try {
            Map<String, Long> grantedAt = new HashMap<>();
            for (HistoryEvent e : events) {
                if (e.type() == HistoryEvent.Type.ACQUIRED) {
                    grantedAt.put(e.actor(), e.nanos());
                } else if (e.type() == HistoryEvent.Type.WRITE_OK
                        && grantedAt.getOrDefault(e.actor(), since) - since > 0) {
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Each actor's latest event, formatted, for error messages. */
    Map<String, String> latest() {
        lock.lock();
        try {
            Map<String, String> last = new java.util.TreeMap<>();
            for (HistoryEvent e : events) {
                last.put(e.actor(), e.type() + (e.detail().isEmpty() ? "" : " " + e.detail()));
            }
            return last;
        } finally {
            lock.unlock();
        }
    }

    /** Every event so far in time order. */
    List<HistoryEvent> snapshot() {
        lock.lock();
        try {
            List<HistoryEvent> copy = new ArrayList<>(events);
            copy.sort(Comparator.comparingLong(HistoryEvent::nanos));
            return copy;
        } finally {
            lock.unlock();
        }
    }

    /** The number of events of {@code type} so far. */
    long count(HistoryEvent.Type type) {
        lock.lock();
        try {
            return events.stream().filter(e -> e.type() == type).count();
        } finally {
            lock.unlock();
        }
    }
}
