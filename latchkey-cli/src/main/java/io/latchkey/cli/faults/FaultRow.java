package io.latchkey.cli.faults;

import java.util.List;

/**
 * The verdict of one backend × fault: the rules' measurements over the fault's window of the history.
 *
 * @param backend e.g. {@code redis}
 * @param fault the fault's label ({@code whole run} for the totals)
 * @param target whom it hit ({@code w2 (token 17)}) or what
 * @param grants acquisitions in the window
 * @param accepted writes the fenced register accepted
 * @param refused writes (or fenced reads) it refused
 * @param unsafe accepted writes that overwrote an accepted write they had not read (must be 0)
 * @param lostUpdates increments that vanished from the register (whole run; must be 0)
 * @param overlaps holds that overlapped another worker's hold (reported; expected under pauses and partitions)
 * @param tokenOrder accepted writes whose token was not above the previous holder's (must be 0)
 * @param lostHolds holds lost to another worker while their holder still believed it held
 * @param told of those, how many were told ({@code onLost} or {@code LockLostException}) (must equal lostHolds)
 * @param nextGrantMillis after a kill, pause or partition of a holder: time until another worker got the lock
 *        (≤ lease + 1 s), or -1
 * @param recoveryMillis after a server fault: time from its start until a write was accepted again, -1 if not
 *        applicable, {@link Long#MAX_VALUE} if never (a violation)
 * @param stuck workers that made no step for longer than the bound (must be 0)
 * @param violations the broken rules, empty when the row passes
 */
public record FaultRow(String backend, String fault, String target, int grants, int accepted, int refused, int unsafe,
                long lostUpdates, int overlaps, int tokenOrder, int lostHolds, int told, long nextGrantMillis,
                long recoveryMillis, int stuck, List<String> violations) {

    public boolean passed() {
        return violations.isEmpty();
    }
}
