package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An interrupted waiter must leave no lock behind. First a waiter parked behind a holder is interrupted (it must
 * throw {@link InterruptedException}); then, in several rounds, the holder releases at the moment the waiter is
 * interrupted (alternately just before and just after), so that a grant may race the interrupt. Whatever the waiter saw, once it has returned and released
 * what it got, the lock must be free.
 */
final class InterruptionCheck {

    static final String INTERRUPTION = "interruption";
    private static final long FREE_WITHIN_MILLIS = 3_000;

    private InterruptionCheck() {
    }

    static CheckResult run(DistributedLock holder, DistributedLock waiter, int raceRounds) throws InterruptedException {
        LockLease held = holder.acquire();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread w = VerifyThreads.start("latchkey-verify-interrupted-waiter", () -> {
            try {
                waiter.lockInterruptibly();
                outcome.set("acquired");
                waiter.unlock();
            } catch (InterruptedException e) {
                outcome.set(e);
            } catch (RuntimeException e) {
                outcome.set(e);
            }
        });
        boolean parked = VerifyThreads.awaitParked(w, 5_000);
        w.interrupt();
        w.join(10_000);
        held.release();
        if (w.isAlive()) {
            return CheckResult.fail(INTERRUPTION, "a waiter in lockInterruptibly() did not return within 10 s of "
                    + "its interrupt");
        }
        if (!(outcome.get() instanceof InterruptedException)) {
            return CheckResult.fail(INTERRUPTION, "a waiter interrupted " + (parked ? "while parked" : "while waiting")
                    + " behind a holder did not throw InterruptedException but " + describe(outcome.get()));
        }
        if (!awaitFree(holder)) {
            return CheckResult.fail(INTERRUPTION, "the lock was still held after the holder released and the "
                    + "interrupted waiter returned");
        }
        int interrupted = 0;
        int acquired = 0;
        for (int round = 1; round <= raceRounds; round++) {
            LockLease roundHold = holder.acquire();
            AtomicReference<Object> seen = new AtomicReference<>();
            Thread racer = VerifyThreads.start("latchkey-verify-racing-waiter", () -> {
                try {
                    LockLease got = waiter.acquire();
                    seen.set("acquired");
                    got.release();
                } catch (InterruptedException e) {
                    seen.set(e);
                } catch (RuntimeException e) {
                    seen.set(e);
                }
            });
            VerifyThreads.awaitParked(racer, 5_000);
            // Alternate the order so that the interrupt lands both before and after the hand-off begins.
            if (round % 2 == 0) {
                roundHold.release();
                racer.interrupt();
            } else {
                racer.interrupt();
                roundHold.release();
            }
            racer.join(10_000);
            if (racer.isAlive()) {
                return CheckResult.fail(INTERRUPTION, String.format(Locale.ROOT, "race round %d: the interrupted "
                        + "waiter did not return within 10 s", round));
            }
            if (seen.get() instanceof InterruptedException) {
                interrupted++;
            } else if ("acquired".equals(seen.get())) {
                acquired++;
            } else {
                return CheckResult.fail(INTERRUPTION, String.format(Locale.ROOT, "race round %d: the waiter failed "
                        + "with %s", round, describe(seen.get())));
            }
            if (!awaitFree(holder)) {
                holder.forceUnlock();
                return CheckResult.fail(INTERRUPTION, String.format(Locale.ROOT, "race round %d: the lock was left "
                        + "held after the waiter was interrupted as the holder released (waiter saw %s)", round,
                        describe(seen.get())));
            }
        }
        return CheckResult.pass(INTERRUPTION, String.format(Locale.ROOT, "parked waiter threw InterruptedException; "
                + "%d interrupt/release races (%d interrupted, %d acquired and released): lock free after each",
                raceRounds, interrupted, acquired));
    }

    /** Releases may finish asynchronously (an interrupted waiter's late grant is handed back), so allow a moment. */
    private static boolean awaitFree(DistributedLock lock) throws InterruptedException {
        long deadline = System.nanoTime() + FREE_WITHIN_MILLIS * 1_000_000;
        while (lock.isLocked()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    private static String describe(Object outcome) {
        if (outcome instanceof Throwable) {
            Throwable t = (Throwable) outcome;
            return t.getClass().getSimpleName() + ": "
                    + Secrets.mask(Connector.firstLine(String.valueOf(t.getMessage())));
        }
        return outcome == null ? "nothing" : "'" + outcome + "'";
    }
}
