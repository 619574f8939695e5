package io.latchkey.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The takes of a semaphore whose answer reached this client, by semaphore name, until the next server call on that
 * name deletes their records. A semaphore recipe records each take on the server in the take's own step, so that a
 * take whose answer is lost can be given back by its id exactly once; once its answer arrives the record is no longer
 * needed. Rather than a round trip of its own, the next call the client makes on the name (usually the release of
 * those permits, or its next take) carries the deletes: {@link #drain} takes them for one call, {@link #requeue} puts
 * them back when that call did not get through (deleting a record twice does no harm).
 *
 * <p>Thread-safe, without a lock: each name's queue changes only inside the map's atomic {@code compute}. Holds no
 * entry for a name with nothing to delete.
 */
public final class AnsweredTakes {
    private final ConcurrentHashMap<String, ArrayDeque<String>> byName = new ConcurrentHashMap<>();

    /** The answer of the take recorded under {@code id} arrived: the next call on {@code name} deletes the record. */
    public void add(String name, String id) {
        Objects.requireNonNull(id, "id");
        byName.compute(name, (k, q) -> {
            ArrayDeque<String> ids = q == null ? new ArrayDeque<>() : q;
            ids.add(id);
            return ids;
        });
    }

    /** Puts back records a call took with {@link #drain} but did not delete (it failed or did not commit). */
    public void requeue(String name, Collection<String> ids) {
        ids.forEach(id -> add(name, id));
    }

    /**
     * Takes at most {@code max} records of {@code name}'s answered takes, oldest first, for one call to delete.
     *
     * @return the record ids taken, empty if there are none
     */
    public List<String> drain(String name, int max) {
        List<String> out = new ArrayList<>();
        byName.computeIfPresent(name, (k, q) -> {
            for (String id; out.size() < max && (id = q.poll()) != null; ) {
                out.add(id);
            }
            return q.isEmpty() ? null : q;
        });
        return out;
    }

    /** {@return the names that have records to delete, a snapshot} (for a client's close). */
    public Set<String> names() {
        return Set.copyOf(byName.keySet());
    }
}
