package io.latchkey.console;

import io.latchkey.LockHolder;
import io.latchkey.console.internal.LeaderRecord;
import io.latchkey.spi.LockInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One row the console shows, made from an inspector's {@link LockInfo}: its name and kind as the page shows them (an
 * election's lock becomes kind {@code election} under the election's name, with its leader and term in the detail),
 * the holding client's name and since when it holds, where the backend records them.
 *
 * @param clientName the holding client's name, or null where the backend does not record it
 * @param heldSince when the hold began in epoch milliseconds, or -1 where the backend does not record it
 */
record ConsoleRow(String name, String kind, String detail, String clientName, long heldSince, LockInfo info) {

    /**
     * The console's rows for one poll: elections folded in, leader records dropped.
     *
     * @param mask what the page shows of a client's name (the command hides passwords in it)
     */
    static List<ConsoleRow> of(List<LockInfo> infos, UnaryOperator<String> mask) {
        Map<String, LeaderRecord> leaders = new HashMap<>();
        for (LockInfo info : infos) {
            LeaderRecord r = LeaderRecord.of(info.name());
            if (r != null) {
                LeaderRecord e = leaders.get(r.name());
                if (e == null || r.term() > e.term()) {
                    leaders.put(r.name(), r);
                }
            }
        }
        List<ConsoleRow> rows = new ArrayList<>();
        for (LockInfo info : infos) {
            if (info.name().startsWith(LeaderRecord.LEADER_RECORD) && LeaderRecord.of(info.name()) != null) {
                continue;
            }
            if (info.name().startsWith(LeaderRecord.ELECTION_LOCK)) {
                String election = info.name().substring(LeaderRecord.ELECTION_LOCK.length());
                long term = info.fencingToken().isPresent() ? info.fencingToken().getAsLong() : -1;
                LeaderRecord record = leaders.get(election);
                boolean current = record != null && record.term() == term;
                String leader = current ? record.candidate() : "(being elected)";
                rows.add(new ConsoleRow(election, "election", "leader " + leader + ", term "
                        + (term < 0 ? "-" : Long.toString(term)), clientName(info, mask),
                        current ? record.sinceMs() : heldSince(info), info));
            } else {
                rows.add(new ConsoleRow(info.name(), info.kind(), info.detail(), clientName(info, mask),
                        heldSince(info), info));
            }
        }
        return rows;
    }

    /** The holding client's name, or null where the hold does not record it. */
    static String clientName(LockInfo info, UnaryOperator<String> mask) {
        String name = info.clientName();
        return name.equals(LockHolder.UNKNOWN_CLIENT) || name.isEmpty() ? null : mask.apply(name);
    }

    /** When the hold began in epoch milliseconds, or -1 where the hold does not record it. */
    static long heldSince(LockInfo info) {
        return info.heldSince().map(Instant::toEpochMilli).orElse(-1L);
    }
}
