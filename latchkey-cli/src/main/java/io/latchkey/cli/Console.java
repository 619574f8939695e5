package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The console's model: polls a client's {@link LockInspector} every interval on its own thread
 * ({@code latchkey-console-poll}), feeds {@link ConsoleState}, and force-unlocks on request after checking that the
 * lock is still held by the hold the operator saw. It does not own the client: whoever opened it closes it after
 * {@link #close()}.
 */
final class Console implements AutoCloseable {

    /** The kinds the page can force-unlock (a holder that can lose it); permits, semaphores and latches cannot. */
    static final Set<String> UNLOCKABLE = Set.of(LockInfo.LOCK, "fair-lock", "write-lock", "election");

    /** Every this many polls the state is published even if nothing changed but the leases. */
    private static final int REFRESH_POLLS = 10;

    private final LockClient client;
    private final LockInspector inspector;
    private final String pattern;
    private final long intervalMs;
    private final ConsoleState state;
    private final ConsoleAudit audit;
    private final Thread poller;
    private volatile boolean closed;

    Console(LockClient client, String backend, String pattern, long intervalMs, ConsoleAudit audit) {
        if (!(client instanceof LockInspector)) {
            throw new CliException(CliException.UNSUPPORTED, String.format(
                    "this backend does not support inspection (%s), which the console reads the locks from",
                    backend));
        }
        this.client = client;
        this.inspector = (LockInspector) client;
        this.pattern = pattern;
        this.intervalMs = intervalMs;
        this.audit = audit;
        this.state = new ConsoleState(backend, pattern, intervalMs, audit);
        this.poller = new Thread(this::pollLoop, "latchkey-console-poll");
        this.poller.setDaemon(true);
    }

    ConsoleState state() {
        return state;
    }

    /** Starts polling; the first poll runs at once. */
    Console start() {
        poller.start();
        return this;
    }

    private void pollLoop() {
        int polls = 0;
        while (!closed) {
            pollOnce(++polls % REFRESH_POLLS == 0);
            // woken early by pollSoon() (after a force-unlock) and by close()
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(intervalMs));
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    /** Has the poller poll at once rather than at its next interval. */
    void pollSoon() {
        LockSupport.unpark(poller);
    }

    /** One poll: lists the matching locks (and the elections among them) and updates the state. */
    void pollOnce(boolean refresh) {
        long now = System.currentTimeMillis();
        try {
            List<LockInfo> infos = new ArrayList<>(inspector.list(pattern));
            if (!pattern.equals("*") && !pattern.startsWith("latchkey.")) {
                infos.addAll(inspector.list(InspectCommand.ELECTION_LOCK + pattern));
                for (LockInfo record : inspector.list(InspectCommand.LEADER_RECORD + "*")) {
                    InspectCommand.Election e = InspectCommand.Election.ofRecord(record.name());
                    if (e != null && LockInspector.matches(pattern, e.name)) {
                        infos.add(record);
                    }
                }
            }
            state.update(ConsoleRow.of(infos), now, refresh);
        } catch (RuntimeException e) {
            state.failed(String.format("cannot list the locks: %s", e.getMessage() == null
                    ? e.getClass().getSimpleName() : e.getMessage()), now);
        }
    }

    /** What a force-unlock request came to: an HTTP status and a message for the page. */
    record UnlockResult(int status, String message) {
    }

    /**
     * Force-unlocks {@code name} if it is still held by the hold the operator confirmed: same kind, owner and
     * fencing token, as listed now (not as last polled); {@code owner} as the page shows it (secrets masked). The check and the release are two steps: a hold that
     * changes in between (a release and a new acquire within a round trip) is released too, as with
     * {@code latchkey unlock}. Every attempt that passed the check is audited.
     */
    UnlockResult unlock(String name, String kind, String owner, long token, String who, String remote) {
        if (!UNLOCKABLE.contains(kind)) {
            return new UnlockResult(400, String.format("a %s cannot be force-unlocked (only %s)", kind,
                    String.join(", ", UNLOCKABLE)));
        }
        String listed = kind.equals("election") ? InspectCommand.ELECTION_LOCK + name : name;
        List<ConsoleRow> now;
        try {
            now = ConsoleRow.of(inspector.list(listed));
        } catch (RuntimeException e) {
            return new UnlockResult(503, "cannot list the lock to check its holder: " + e.getMessage());
        }
        List<String> holders = new ArrayList<>();
        boolean same = false;
        String rawOwner = owner;
        String client = null;
        for (ConsoleRow row : now) {
            if (!row.name().equals(name)) {
                continue;
            }
            long t = row.info().fencingToken().isPresent() ? row.info().fencingToken().getAsLong() : -1;
            if (row.kind().equals(kind) && Secrets.mask(row.info().owner()).equals(owner) && t == token) {
                same = true;
                rawOwner = row.info().owner();
                client = row.clientName();
            }
            holders.add(Secrets.mask(row.info().owner()) + (t < 0 ? "" : " (token " + t + ")"));
        }
        if (!same) {
            return new UnlockResult(409, holders.isEmpty()
                    ? String.format("'%s' is no longer held: nothing was released", name)
                    : String.format("'%s' is now held by %s, not by the hold you confirmed: nothing was released",
                            name, String.join(", ", holders)));
        }
        String outcome;
        int status;
        try {
            boolean wasHeld = lockOf(kind, name).forceUnlock();
            outcome = wasHeld ? "released" : "not held";
            status = wasHeld ? 200 : 409;
            state.endAs(ConsoleState.key(name, kind, rawOwner, token), "force-unlocked");
        } catch (RuntimeException e) {
            outcome = "failed: " + e.getMessage();
            status = 503;
        }
        String message = String.format("%s '%s' (holder %s, token %s): %s", "force-unlock", name,
                Secrets.mask(owner), token < 0 ? "-" : Long.toString(token), outcome);
        try {
            audit.record(new ConsoleAudit.Entry(Instant.now(), who, remote, name, token < 0 ? "-" : Long.toString(token),
                    Secrets.mask(owner) + (client == null ? "" : " (" + client + ")"), outcome));
        } catch (IOException e) {
            message += String.format(" (the audit file could not be written: %s)", e.getMessage());
        }
        pollSoon();
        return new UnlockResult(status, message);
    }

    private DistributedLock lockOf(String kind, String name) {
        return switch (kind) {
            case "fair-lock" -> client.fairLock(name);
            case "write-lock" -> client.readWriteLock(name).writeLock();
            case "election" -> client.lock(InspectCommand.ELECTION_LOCK + name);
            default -> client.lock(name);
        };
    }

    /** Stops polling and waits for the poll under way to end (at most the client's operation timeout). */
    @Override
    public void close() {
        closed = true;
        poller.interrupt();
        try {
            poller.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
