package io.latchkey.cli;

import io.latchkey.LockHolder;
import io.latchkey.spi.LockInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One row the console shows, made from an inspector's {@link LockInfo}: its name and kind as the page shows them (an
 * election's lock becomes kind {@code election} under the election's name, with its leader and term in the detail),
 * the holding client's name and since when it holds, where the backend records them.
 *
 * @param clientName the holding client's name, or null where the backend does not record it
 * @param heldSince when the hold began in epoch milliseconds, or -1 where the backend does not record it
 */
record ConsoleRow(String name, String kind, String detail, String clientName, long heldSince, LockInfo info) {

    /** The console's rows for one poll: elections folded in, leader records dropped. */
    static List<ConsoleRow> of(List<LockInfo> infos) {
        Map<String, InspectCommand.Election> leaders = new HashMap<>();
        for (LockInfo info : infos) {
            InspectCommand.Election r = InspectCommand.Election.ofRecord(info.name());
            if (r != null) {
                InspectCommand.Election e = leaders.get(r.name);
                if (e == null || r.recordTerm > e.recordTerm) {
                    leaders.put(r.name, r);
                }
            }
        }
        List<ConsoleRow> rows = new ArrayList<>();
        for (LockInfo info : infos) {
            if (info.name().startsWith(InspectCommand.LEADER_RECORD)
                    && InspectCommand.Election.ofRecord(info.name()) != null) {
                continue;
            }
            if (info.name().startsWith(InspectCommand.ELECTION_LOCK)) {
                String election = info.name().substring(InspectCommand.ELECTION_LOCK.length());
                long term = info.fencingToken().isPresent() ? info.fencingToken().getAsLong() : -1;
                InspectCommand.Election record = leaders.get(election);
                String leader = record != null && record.recordTerm == term ? record.candidate : "(being elected)";
                rows.add(new ConsoleRow(election, "election", "leader " + leader + ", term "
                        + (term < 0 ? "-" : Long.toString(term)), clientName(info),
                        record != null && record.recordTerm == term ? record.since.toEpochMilli() : heldSince(info),
                        info));
            } else {
                rows.add(new ConsoleRow(info.name(), info.kind(), info.detail(), clientName(info), heldSince(info),
                        info));
            }
        }
        return rows;
    }

    /** The holding client's name, or null where the hold does not record it. */
    static String clientName(LockInfo info) {
        String name = info.clientName();
        return name.equals(LockHolder.UNKNOWN_CLIENT) || name.isEmpty() ? null : Secrets.mask(name);
    }

    /** When the hold began in epoch milliseconds, or -1 where the hold does not record it. */
    static long heldSince(LockInfo info) {
        return info.heldSince().map(Instant::toEpochMilli).orElse(-1L);
    }
}
