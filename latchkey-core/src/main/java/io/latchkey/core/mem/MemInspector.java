package io.latchkey.core.mem;

import io.latchkey.LockHolder;
import io.latchkey.core.NameArbiter.GrantState;
import io.latchkey.spi.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The operator's view of a mem server's locks: who holds a key, and every hold of a namespace. Reads under the locks'
 * lock; expired holds are skipped, not removed: inspection changes nothing.
 */
final class MemInspector {

    private MemInspector() {
    }

    /** Who holds {@code key} now (the first unexpired hold), with the length of its queue; {@code null} if free. */
    static LockHolder holder(MemLocks locks, String key) {
        locks.lock.lock();
        try {
            MemLocks.Entry e = locks.entries().get(key);
            long now = System.nanoTime();
            for (GrantState h : e == null ? List.<GrantState>of() : e.holds()) {
                if (h.leaseEnd() - now > 0) {
                    return new LockHolder(h.owner(), h.clientName(), Optional.of(Instant.ofEpochMilli(h.sinceMillis())),
                            Optional.of(Duration.ofNanos(h.leaseEnd() - now)), OptionalLong.of(h.token()),
                            OptionalInt.of(e.queue().size()));
                }
            }
            return null;
        } finally {
            locks.lock.unlock();
        }
    }

    /**
     * The unexpired holds of every lock key that starts with {@code prefix}, named by the rest of the key, for
     * {@link MemLockClient#list}: one entry per hold (a read lock may have several), with the server's token, its
     * remaining lease on the server's clock and the length of the key's queue. Holds count 1 each: reentrancy is
     * counted by the holder's client.
     */
    static List<LockInfo> holds(MemLocks locks, String prefix) {
        List<LockInfo> result = new ArrayList<>();
        locks.lock.lock();
        try {
            if (!locks.isAvailable()) {
                throw locks.unavailable("inspect");
            }
            long now = System.nanoTime();
            for (MemLocks.Entry e : locks.entries().values()) {
                if (!e.key.startsWith(prefix)) {
                    continue;
                }
                for (GrantState h : e.holds()) {
                    long left = h.leaseEnd() - now;
                    if (left > 0) {
                        result.add(new LockInfo(e.key.substring(prefix.length()), h.owner(), 1,
                                OptionalLong.of(h.token()), Optional.of(Duration.ofNanos(left)),
                                OptionalInt.of(e.queue().size()))
                                .withHolder(h.clientName(), Optional.of(Instant.ofEpochMilli(h.sinceMillis()))));
                    }
                }
            }
        } finally {
            locks.lock.unlock();
        }
        return result;
    }
}
