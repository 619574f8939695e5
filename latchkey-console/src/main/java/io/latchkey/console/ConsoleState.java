package io.latchkey.console;

import io.latchkey.spi.LockInfo;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * What the console observed: the holds seen in the last poll, and the timeline of holds of the last
 * {@link #WINDOW_MS} (who held which name, from when to when, and how each hold ended). One poller thread
 * {@linkplain #update updates} it; the page's connections read the JSON of the latest state and
 * {@linkplain #awaitChange wait for the next one}. A hold is one (name, kind, owner, fencing token): a new token or
 * owner on the same name is a new bar on the timeline.
 */
final class ConsoleState {

    /** How far back the timeline goes. */
    static final long WINDOW_MS = TimeUnit.MINUTES.toMillis(10);

    /** At most this many bars are kept (the oldest ended ones go first). */
    static final int MAX_SEGMENTS = 5000;

    /** One hold as the console sees it, and its bar on the timeline. */
    static final class SeenHold {
        final String name;
        final String kind;
        final String owner;
        final long token;
        final long firstSeen;
        String clientName;
        long heldSince = -1;
        int holdCount;
        long leaseMs = -1;
        long leaseSeenAt;
        int waiters = -1;
        int maxWaiters = -1;
        String detail = "";
        boolean renews;
        long end = -1;
        String endReason = "";

        SeenHold(String name, String kind, String owner, long token, long firstSeen) {
            this.name = name;
            this.kind = kind;
            this.owner = owner;
            this.token = token;
            this.firstSeen = firstSeen;
        }

        /** When the hold began as the backend records it (by its clock), else when the console first saw it. */
        long start() {
            return heldSince >= 0 ? heldSince : firstSeen;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, SeenHold> current = new LinkedHashMap<>();
    private final Deque<SeenHold> ended = new ArrayDeque<>();
    private final Map<String, String> endReasons = new HashMap<>();
    private final String backend;
    private final String pattern;
    private final long intervalMs;
    private final ConsoleAudit audit;
    private final UnaryOperator<String> mask;
    private String error;
    private long version;
    private String json = "{}";

    ConsoleState(String backend, String pattern, long intervalMs, ConsoleAudit audit) {
        this(backend, pattern, intervalMs, audit, UnaryOperator.identity());
    }

    /** @param mask what the page shows of an owner or client name (the command hides passwords in it) */
    ConsoleState(String backend, String pattern, long intervalMs, ConsoleAudit audit, UnaryOperator<String> mask) {
        this.backend = backend;
        this.pattern = pattern;
        this.intervalMs = intervalMs;
        this.audit = audit;
        this.mask = mask;
        lock.lock();
        try {
            json = render(System.currentTimeMillis());
        } finally {
            lock.unlock();
        }
    }

    static String key(String name, String kind, String owner, long token) {
        return name + '\u0000' + kind + '\u0000' + owner + '\u0000' + token;
    }

    /**
     * Takes in one poll's rows (elections already folded into rows of kind {@code election}). Holds no longer
     * listed end now, as released unless {@link #endAs} said otherwise.
     *
     * @param force publish even if nothing but the remaining leases changed (the periodic refresh)
     * @return whether anything but the remaining leases changed
     */
    boolean update(List<ConsoleRow> rows, long now, boolean force) {
        lock.lock();
        try {
            boolean change = error != null;
            error = null;
            Map<String, SeenHold> seen = new LinkedHashMap<>();
            for (ConsoleRow row : rows) {
                LockInfo info = row.info();
                long token = info.fencingToken().isPresent() ? info.fencingToken().getAsLong() : -1;
                String key = key(row.name(), row.kind(), info.owner(), token);
                SeenHold h = current.remove(key);
                if (h == null) {
                    h = new SeenHold(row.name(), row.kind(), info.owner(), token, now);
                    change = true;
                }
                long lease = info.remainingLease().map(d -> d.toMillis()).orElse(-1L);
                if (h.leaseMs >= 0 && lease >= 0 && lease > h.leaseMs - (now - h.leaseSeenAt) + intervalMs / 2) {
                    change |= !h.renews;
                    h.renews = true;
                }
                h.leaseMs = lease;
                h.leaseSeenAt = now;
                change |= h.holdCount != info.holdCount() || h.waiters != info.waiters().orElse(-1)
                        || !h.detail.equals(row.detail()) || !Objects.equals(h.clientName, row.clientName())
                        || h.heldSince != row.heldSince();
                h.holdCount = info.holdCount();
                h.waiters = info.waiters().orElse(-1);
                h.maxWaiters = Math.max(h.maxWaiters, h.waiters);
                h.detail = row.detail();
                h.clientName = row.clientName();
                h.heldSince = row.heldSince();
                seen.put(key, h);
            }
            for (Map.Entry<String, SeenHold> gone : current.entrySet()) {
                SeenHold h = gone.getValue();
                h.end = now;
                String reason = endReasons.remove(gone.getKey());
                h.endReason = reason != null ? reason
                        : h.leaseMs >= 0 && h.leaseMs - (now - h.leaseSeenAt) <= intervalMs ? "expired" : "released";
                ended.addLast(h);
                change = true;
            }
            current.clear();
            current.putAll(seen);
            endReasons.keySet().retainAll(current.keySet());
            prune(now);
            if (change || force) {
                publish(now);
            }
            return change;
        } finally {
            lock.unlock();
        }
    }

    /** Notes that the hold {@code key} was force-unlocked by the console: its bar ends as such. */
    void endAs(String key, String reason) {
        lock.lock();
        try {
            endReasons.put(key, reason);
        } finally {
            lock.unlock();
        }
    }

    /** Records that the last poll failed; the last rows stay shown with the error above them. */
    void failed(String message, long now) {
        lock.lock();
        try {
            if (!message.equals(error)) {
                error = message;
                publish(now);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Publishes the state again (after an audit entry). */
    void touch(long now) {
        lock.lock();
        try {
            publish(now);
        } finally {
            lock.unlock();
        }
    }

    /** The hold of {@code name} now, by kind, owner and token, or null; for the force-unlock check. */
    List<SeenHold> holdsOf(String name) {
        lock.lock();
        try {
            List<SeenHold> holds = new ArrayList<>();
            for (SeenHold h : current.values()) {
                if (h.name.equals(name)) {
                    holds.add(h);
                }
            }
            return holds;
        } finally {
            lock.unlock();
        }
    }

    /** The latest state as JSON, and its version. */
    Snapshot snapshot() {
        lock.lock();
        try {
            return new Snapshot(version, json);
        } finally {
            lock.unlock();
        }
    }

    record Snapshot(long version, String json) {
    }

    /**
     * Waits until the state is newer than {@code seen}, at most {@code timeoutMs}.
     *
     * @return the newer state, or the same one after the timeout
     * @throws InterruptedException if interrupted while waiting
     */
    Snapshot awaitChange(long seen, long timeoutMs) throws InterruptedException {
        long nanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        lock.lock();
        try {
            while (version == seen && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return new Snapshot(version, json);
        } finally {
            lock.unlock();
        }
    }

    private void prune(long now) {
        Iterator<SeenHold> it = ended.iterator();
        while (it.hasNext()) {
            SeenHold h = it.next();
            if (h.end < now - WINDOW_MS || ended.size() > MAX_SEGMENTS) {
                it.remove();
            } else {
                break;
            }
        }
    }

    private void publish(long now) {
        version++;
        json = render(now);
        changed.signalAll();
    }

    private String render(long now) {
        ConsoleJson j = new ConsoleJson().beginObject()
                .field("now", now)
                .field("backend", backend)
                .field("pattern", pattern)
                .field("intervalMs", intervalMs)
                .field("windowMs", WINDOW_MS)
                .field("error", error);
        j.beginArray("holds");
        for (SeenHold h : current.values()) {
            hold(j, h, now);
        }
        j.endArray().beginArray("ended");
        for (Iterator<SeenHold> it = ended.descendingIterator(); it.hasNext(); ) {
            hold(j, it.next(), now);
        }
        j.endArray().beginArray("audit");
        for (ConsoleAudit.Entry e : audit.entries()) {
            j.beginObject().field("at", e.at().toEpochMilli()).field("who", e.who()).field("remote", e.remote())
                    .field("lock", e.lock()).field("token", e.token()).field("holder", e.holder())
                    .field("outcome", e.outcome()).endObject();
        }
        return j.endArray().endObject().toString();
    }

    private void hold(ConsoleJson j, SeenHold h, long now) {
        j.beginObject()
                .field("key", key(h.name, h.kind, mask.apply(h.owner), h.token))
                .field("name", h.name)
                .field("kind", h.kind)
                .field("owner", mask.apply(h.owner))
                .field("client", h.clientName)
                .fieldOrNull("token", h.token)
                .field("holdCount", h.holdCount)
                .field("start", h.start())
                .field("sinceKnown", h.heldSince >= 0)
                .fieldOrNull("leaseMs", h.end >= 0 || h.leaseMs < 0 ? -1 : Math.max(0, h.leaseMs - (now - h.leaseSeenAt)))
                .field("renews", h.renews)
                .fieldOrNull("waiters", h.waiters)
                .fieldOrNull("maxWaiters", h.maxWaiters)
                .field("detail", h.detail)
                .fieldOrNull("end", h.end)
                .field("endReason", h.endReason)
                .endObject();
    }
}
