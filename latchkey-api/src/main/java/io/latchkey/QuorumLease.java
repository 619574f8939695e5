package io.latchkey;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The {@link RedLockLease} of {@link QuorumLock}: a quorum of part leases and the validity deadline. */
final class QuorumLease extends CompositeLease implements RedLockLease {

    private final int quorum;
    private final int totalParts;
    private final boolean watchdog;
    /** {@link System#nanoTime()} at which the validity runs out; unused for watchdog leases. */
    private final long validUntilNanos;
    private final AtomicInteger validParts;

    /**
     * @param parts the parts taken (at least {@code quorum})
     * @param totalParts how many parts the RedLock has in all
     */
    QuorumLease(String name, List<LockLease> parts, int quorum, int totalParts, boolean watchdog,
                long validUntilNanos) {
        super(name, parts);
        this.quorum = quorum;
        this.totalParts = totalParts;
        this.watchdog = watchdog;
        this.validUntilNanos = validUntilNanos;
        this.validParts = new AtomicInteger(this.parts.size());
        for (LockLease part : this.parts) {
            part.onLost(this::partLost);
        }
        if (!watchdog) {
            long delay = Math.max(0, validUntilNanos - System.nanoTime());
            // the JDK's shared delay scheduler, so that no thread of ours outlives the lease
            CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(this::checkExpiry);
        }
    }

    private void partLost() {
        int left = validParts.decrementAndGet();
        if (!watchdog && validUntilNanos - System.nanoTime() <= 0) {
            // Parts of a fixed lease expire just after the validity; on a loaded machine their loss can be noticed
            // before the validity timer fires. The validity running out is the cause, so report that.
            checkExpiry();
        } else if (left < quorum) {
            markLost(String.format("only %d of %d parts remain valid, fewer than the quorum of %d", left,
                    parts.size(), quorum));
        }
    }

    @Override
    void checkExpiry() {
        if (!watchdog && validUntilNanos - System.nanoTime() <= 0) {
            markLost("its validity ran out");
        }
    }

    @Override
    public boolean isValid() {
        return super.isValid() && validParts.get() >= quorum
                && (watchdog || validUntilNanos - System.nanoTime() > 0);
    }

    @Override
    public Duration validity() {
        if (!isValid()) {
            return Duration.ZERO;
        }
        if (watchdog) {
            return ChronoUnit.FOREVER.getDuration();
        }
        return Duration.ofNanos(Math.max(0, validUntilNanos - System.nanoTime()));
    }

    @Override
    public int heldParts() {
        return parts.size();
    }

    @Override
    public long fencingToken() {
        long max = Long.MIN_VALUE;
        for (LockLease part : parts) {
            max = Math.max(max, part.fencingToken());
        }
        return max;
    }

    @Override
    RuntimeException releaseFailure(boolean lostBefore, int lostParts, List<Throwable> failures) {
        int stillValid = Math.min(validParts.get(), parts.size() - lostParts);
        if (lostBefore || stillValid < quorum) {
            String reason = lostBefore && lossReason() != null ? lossReason()
                    : String.format("only %d of %d parts were still held, fewer than the quorum of %d", stillValid,
                            parts.size(), quorum);
            return withSuppressed(new LockLostException(lockName(), String.format(
                    "redLock '%s' was lost before release: %s; every part was released", lockName(), reason)),
                    failures);
        }
        int unreleased = failures.size() - lostParts;
        if (unreleased > totalParts - quorum) {
            // too many parts stay locked until their leases expire: other clients cannot form a quorum meanwhile
            Throwable first = failures.stream().filter(f -> !(f instanceof LockLostException)).findFirst()
                    .orElse(null);
            return withSuppressed(new LockUnavailableException(String.format(
                    "redLock '%s': %d of %d parts could not be released and stay locked until their leases expire",
                    lockName(), unreleased, parts.size()), first), failures);
        }
        return null;
    }
}
