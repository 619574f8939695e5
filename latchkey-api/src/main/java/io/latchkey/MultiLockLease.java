package io.latchkey;

import java.util.List;

/**
 * A lease on every part of a multi-lock: valid while every part is, lost as soon as one part is lost. Its fencing
 * token is the first part's (in the multi-lock's acquisition order).
 */
final class MultiLockLease extends CompositeLease {

    /** @param parts the part leases in acquisition order */
    MultiLockLease(String name, List<LockLease> parts) {
        super(name, parts);
        for (LockLease part : this.parts) {
            String partName = part.lockName();
            part.onLost(() -> markLost(String.format("part '%s' was lost while held", partName)));
        }
    }

    @Override
    public long fencingToken() {
        return parts.get(0).fencingToken();
    }

    @Override
    public boolean isValid() {
        if (!super.isValid()) {
            return false;
        }
        for (LockLease part : parts) {
            if (!part.isValid()) {
                return false;
            }
        }
        return true;
    }

    @Override
    RuntimeException releaseFailure(boolean lostBefore, int lostParts, List<Throwable> failures) {
        if (lostBefore || lostParts > 0) {
            String reason = lostBefore && lossReason() != null ? lossReason() : lostParts + " part(s) had been lost";
            return withSuppressed(new LockLostException(lockName(), String.format(
                    "multi-lock '%s' was lost: %s; every other part was released", lockName(), reason)), failures);
        }
        if (!failures.isEmpty()) {
            Throwable first = failures.get(0);
            if (first instanceof RuntimeException) {
                return withSuppressed((RuntimeException) first, failures);
            }
            return withSuppressed(new LockException(String.format(
                    "multi-lock '%s': releasing a part failed", lockName()), first), failures);
        }
        return null;
    }
}
