package io.latchkey.console;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.console.internal.LeaderRecord;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The lock console: a web page of who holds which lock of a client's namespace, since when and what waits; a
 * timeline of the last minutes; force-unlock with a confirmation and an audit log. It reads the locks through the
 * client's {@link LockInspector}, polling every interval on its own thread ({@code latchkey-console-poll}), and
 * answers the page's requests through {@link #handle}, on whichever server carries it: it listens on nothing itself.
 *
 * <p>Force-unlock is a POST that must carry the CSRF token of a page this console served (and, when the browser sends
 * one, its own {@code Origin}); the lock is released only if it is still held by the hold the operator confirmed
 * (kind, holder and fencing token as listed at that moment). Its holder is not asked: it learns at its next renewal or
 * release that it lost the lock. Who may reach the console at all is the carrying server's decision.
 *
 * <p>The console does not own the client: whoever opened it closes it after {@link #close()}. Lock names, holders
 * and every other value read from the backend are text chosen by whoever took the lock: the page shows them as text
 * and never interprets them.
 */
public final class LockConsole implements AutoCloseable {

    /** The header a force-unlock must carry with the page's CSRF token. */
    public static final String CSRF_HEADER = "X-Latchkey-Csrf";

    /** The Content-Security-Policy of every answer: the page's own script and style only, no framing. */
    public static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            + "frame-ancestors 'none'";

    /** The kinds the page can force-unlock (a holder that can lose it); permits, semaphores and latches cannot. */
    static final Set<String> UNLOCKABLE = Set.of(LockInfo.LOCK, "fair-lock", "write-lock", "election");

    /** Every this many polls the state is published even if nothing changed but the leases. */
    private static final int REFRESH_POLLS = 10;

    private final LockClient client;
    private final LockInspector inspector;
    private final String pattern;
    private final long intervalMs;
    private final UnaryOperator<String> mask;
    private final ConsoleState state;
    private final ConsoleAudit audit;
    private final ConsoleHttp http;
    private final Thread poller;
    private volatile boolean closed;

    private LockConsole(Builder b) {
        this.client = b.client;
        this.inspector = (LockInspector) b.client;
        this.pattern = b.pattern;
        this.intervalMs = b.interval.toMillis();
        this.mask = b.mask;
        this.audit = new ConsoleAudit(b.auditFile, b.auditSink);
        this.state = new ConsoleState(b.backend, pattern, intervalMs, audit, mask);
        this.http = new ConsoleHttp(this, b.maxStreams);
        this.poller = new Thread(this::pollLoop, "latchkey-console-poll");
        this.poller.setDaemon(true);
    }

    /**
     * Starts building a console over {@code client}.
     *
     * @param client the client whose namespace the console shows and whose locks it force-unlocks
     * @return a builder with the defaults: every lock, polled every 500 ms, audit kept in memory only
     * @throws NullPointerException if {@code client} is null
     * @throws IllegalArgumentException if the client's backend cannot list its locks (it is no {@link LockInspector})
     */
    public static Builder builder(LockClient client) {
        Objects.requireNonNull(client, "client");
        if (!(client instanceof LockInspector)) {
            throw new IllegalArgumentException(String.format("the console reads the locks through the backend's "
                    + "inspection, which this client (%s) does not support", client.getClass().getSimpleName()));
        }
        return new Builder(client);
    }

    /** Starts polling; the first poll runs at once. Answers served before it show an empty state. */
    public LockConsole start() {
        poller.start();
        return this;
    }

    /**
     * Answers one request: the page ({@code /}) with a new CSRF token, its assets, the state as server-sent events
     * ({@code /events}: the whole state at once, then again at every change, until the client goes away or the
     * console closes) or as one JSON answer ({@code /api/state}), and force-unlock ({@code POST /api/unlock}). Every
     * answer carries {@link #CONTENT_SECURITY_POLICY}, refuses framing and is not cached. An event stream keeps the
     * calling thread until it ends; at most the builder's {@code maxStreams} are served at once (503 beyond).
     *
     * @param exchange the request and its answer
     * @param who who the caller is for the audit log (an access token's label, the application's user), never null
     * @throws IOException if the client went away
     */
    public void handle(ConsoleExchange exchange, String who) throws IOException {
        http.handle(exchange, Objects.requireNonNull(who, "who"));
    }

    ConsoleState state() {
        return state;
    }

    boolean closed() {
        return closed;
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
                infos.addAll(inspector.list(LeaderRecord.ELECTION_LOCK + pattern));
                for (LockInfo record : inspector.list(LeaderRecord.LEADER_RECORD + "*")) {
                    LeaderRecord e = LeaderRecord.of(record.name());
                    if (e != null && LockInspector.matches(pattern, e.name())) {
                        infos.add(record);
                    }
                }
            }
            state.update(ConsoleRow.of(infos, mask), now, refresh);
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
     * fencing token, as listed now (not as last polled); {@code owner} as the page shows it (masked). The check and
     * the release are two steps: a hold that changes in between (a release and a new acquire within a round trip) is
     * released too, as with {@code latchkey unlock}. Every attempt that passed the check is audited.
     */
    UnlockResult unlock(String name, String kind, String owner, long token, String who, String remote) {
        if (!UNLOCKABLE.contains(kind)) {
            return new UnlockResult(400, String.format("a %s cannot be force-unlocked (only %s)", kind,
                    String.join(", ", UNLOCKABLE)));
        }
        String listed = kind.equals("election") ? LeaderRecord.ELECTION_LOCK + name : name;
        List<ConsoleRow> now;
        try {
            now = ConsoleRow.of(inspector.list(listed), mask);
        } catch (RuntimeException e) {
            return new UnlockResult(503, "cannot list the lock to check its holder: " + e.getMessage());
        }
        List<String> holders = new ArrayList<>();
        boolean same = false;
        String rawOwner = owner;
        String clientName = null;
        for (ConsoleRow row : now) {
            if (!row.name().equals(name)) {
                continue;
            }
            long t = row.info().fencingToken().isPresent() ? row.info().fencingToken().getAsLong() : -1;
            if (row.kind().equals(kind) && mask.apply(row.info().owner()).equals(owner) && t == token) {
                same = true;
                rawOwner = row.info().owner();
                clientName = row.clientName();
            }
            holders.add(mask.apply(row.info().owner()) + (t < 0 ? "" : " (token " + t + ")"));
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
                mask.apply(owner), token < 0 ? "-" : Long.toString(token), outcome);
        try {
            audit.record(new ConsoleAudit.Entry(Instant.now(), who, remote, name, token < 0 ? "-" : Long.toString(token),
                    mask.apply(owner) + (clientName == null ? "" : " (" + clientName + ")"), outcome));
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
            case "election" -> client.lock(LeaderRecord.ELECTION_LOCK + name);
            default -> client.lock(name);
        };
    }

    /**
     * Stops polling and waits for the poll under way to end (at most the client's operation timeout); open event
     * streams end at once. The client stays open.
     */
    @Override
    public void close() {
        closed = true;
        state.touch(System.currentTimeMillis()); // wakes the event streams, which see closed
        poller.interrupt();
        try {
            poller.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Builds a {@link LockConsole}; every setter checks its value and throws IllegalArgumentException if bad. */
    public static final class Builder {

        private final LockClient client;
        private String backend;
        private String pattern = "*";
        private Duration interval = Duration.ofMillis(500);
        private Path auditFile;
        private Consumer<String> auditSink;
        private UnaryOperator<String> mask = UnaryOperator.identity();
        private int maxStreams = 12;

        private Builder(LockClient client) {
            this.client = client;
            this.backend = client.getClass().getSimpleName();
        }

        /**
         * Sets how the page names the backend (default: the client's class name).
         *
         * @param backend e.g. {@code Redis at localhost:6379}; no passwords
         * @return this builder
         */
        public Builder backend(String backend) {
            this.backend = Objects.requireNonNull(backend, "backend");
            return this;
        }

        /**
         * Shows only locks whose names match {@code pattern} (default {@code *}: all).
         *
         * @param pattern a glob as {@link LockInspector#list} defines it: {@code *} any run, {@code ?} one character
         * @return this builder
         * @throws IllegalArgumentException if it is empty
         */
        public Builder pattern(String pattern) {
            if (Objects.requireNonNull(pattern, "pattern").isEmpty()) {
                throw new IllegalArgumentException("the console's pattern must not be empty (* shows every lock)");
            }
            this.pattern = pattern;
            return this;
        }

        /**
         * Sets how often the backend is listed (default 500 ms): each poll is one listing of the namespace.
         *
         * @param interval from 50 ms to 1 minute
         * @return this builder
         * @throws IllegalArgumentException if it is out of that range
         */
        public Builder interval(Duration interval) {
            if (interval.compareTo(Duration.ofMillis(50)) < 0 || interval.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException(String.format(
                        "the console's interval must be from 50ms to 1m but was %d ms", interval.toMillis()));
            }
            this.interval = interval;
            return this;
        }

        /**
         * Appends every force-unlock to {@code file} too, one tab-separated line each (default: none).
         *
         * @param file a file that {@link #build()} checks can be appended to, or null for none
         * @return this builder
         */
        public Builder auditFile(Path file) {
            this.auditFile = file;
            return this;
        }

        /**
         * Hands every force-unlock's audit line to {@code sink} too, such as the application's log (default: none).
         *
         * @param sink called on the requesting thread, after the file; or null for none
         * @return this builder
         */
        public Builder auditSink(Consumer<String> sink) {
            this.auditSink = sink;
            return this;
        }

        /**
         * Sets what the page shows of holders and client names (default: them as they are); the command hides the
         * passwords of the URIs it was given.
         *
         * @param mask applied to every holder and client name before it leaves the console
         * @return this builder
         */
        public Builder mask(UnaryOperator<String> mask) {
            this.mask = Objects.requireNonNull(mask, "mask");
            return this;
        }

        /**
         * Sets how many event streams are served at once (default 12); each keeps one of the server's threads.
         *
         * @param maxStreams at least 1
         * @return this builder
         * @throws IllegalArgumentException if it is less than 1
         */
        public Builder maxStreams(int maxStreams) {
            if (maxStreams < 1) {
                throw new IllegalArgumentException("the console's maxStreams must be at least 1 but was " + maxStreams);
            }
            this.maxStreams = maxStreams;
            return this;
        }

        /**
         * Builds the console; {@link LockConsole#start()} starts its polling.
         *
         * @return the console, not yet polling
         * @throws UncheckedIOException if the audit file cannot be appended to (the console does not start with a
         *         broken audit log)
         */
        public LockConsole build() {
            try {
                new ConsoleAudit(auditFile).checkWritable();
            } catch (IOException e) {
                throw new UncheckedIOException(String.format("cannot append to the audit file %s: %s", auditFile,
                        e.getMessage()), e);
            }
            return new LockConsole(this);
        }
    }
}
