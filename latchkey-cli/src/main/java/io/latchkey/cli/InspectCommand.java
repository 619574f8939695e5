package io.latchkey.cli;

import io.latchkey.LockClient;
import io.latchkey.console.internal.LeaderRecord;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code latchkey inspect URI [PATTERN]}: the locks held now, and the leader elections with their leader and term
 * (an election's own locks, {@code latchkey.election:…} and {@code latchkey.leader:…}, are shown as the election,
 * not as held locks).
 */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "List the locks held in a backend: name, kind (lock, fair-lock, read-lock, write-lock, "
                + "permit, semaphore, latch), owner, the holding client's name and since when, hold count, fencing "
                + "token, remaining lease, detail and waiters (where the backend knows them); then the leader "
                + "elections: name, leader, term, since.")
final class InspectCommand implements Callable<Integer> {

    @Mixin
    GlobalOptions global;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "URI", description = "The backend, e.g. redis://localhost:6379.")
    String uri;

    @Parameters(index = "1", arity = "0..1", paramLabel = "PATTERN", defaultValue = "*",
            description = "Glob over lock names: * any run, ? one character (default: all).")
    String pattern;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient client = Connector.open(uri, global.timeout)) {
            if (!(client instanceof LockInspector)) {
                throw new CliException(CliException.UNSUPPORTED, String.format(
                        "this backend does not support inspection (%s); 'latchkey unlock' still works by name",
                        Connector.describe(uri)));
            }
            LockInspector inspector = (LockInspector) client;
            List<LockInfo> found = new ArrayList<>(list(inspector, pattern));
            if (!pattern.startsWith("latchkey.") && !pattern.equals("*")) {
                // an election's locks are named after it under reserved prefixes: match the pattern on its name
                found.addAll(list(inspector, LeaderRecord.ELECTION_LOCK + pattern));
                Pattern electionName = glob(pattern);
                for (LockInfo record : list(inspector, LeaderRecord.LEADER_RECORD + "*")) {
                    LeaderRecord r = LeaderRecord.of(record.name());
                    if (r != null && electionName.matcher(r.name()).matches()) {
                        found.add(record);
                    }
                }
            }
            List<LockInfo> locks = new ArrayList<>();
            Map<String, Election> elections = new TreeMap<>();
            for (LockInfo lock : found) {
                LeaderRecord r = LeaderRecord.of(lock.name());
                if (lock.name().startsWith(LeaderRecord.ELECTION_LOCK)) {
                    String name = lock.name().substring(LeaderRecord.ELECTION_LOCK.length());
                    Election e = elections.computeIfAbsent(name, Election::new);
                    e.lockTerm = lock.fencingToken().isPresent() ? lock.fencingToken().getAsLong() : -1;
                    e.lease = lock.remainingLease().orElse(null);
                    e.held = true;
                } else if (r != null) {
                    Election e = elections.computeIfAbsent(r.name(), Election::new);
                    if (r.term() > e.recordTerm) {
                        e.recordTerm = r.term();
                        e.candidate = r.candidate();
                        e.since = Instant.ofEpochMilli(r.sinceMs());
                    }
                } else {
                    locks.add(lock);
                }
            }
            printLocks(out, locks);
            if (!elections.isEmpty()) {
                printElections(out, elections.values());
            }
            return 0;
        }
    }

    private List<LockInfo> list(LockInspector inspector, String glob) {
        try {
            return inspector.list(glob);
        } catch (RuntimeException e) {
            throw Connector.translate(uri, global.timeout, e);
        }
    }

    private void printLocks(PrintWriter out, List<LockInfo> locks) {
        if (locks.isEmpty()) {
            out.printf("no held locks match '%s' on %s%n", pattern, Connector.describe(uri));
            return;
        }
        TextTable table = new TextTable("name", "kind", "owner", "client", "since", "holds", "token", "lease left",
                "detail", "waiters").alignRight(5, 6, 7, 9);
        for (LockInfo lock : locks) {
            table.row(lock.name(), lock.kind(), Secrets.mask(lock.owner()), printable(lock.clientName()),
                    lock.heldSince().map(t -> t.truncatedTo(ChronoUnit.SECONDS).toString()).orElse("-"),
                    String.valueOf(lock.holdCount()),
                    lock.fencingToken().isPresent() ? String.valueOf(lock.fencingToken().getAsLong()) : "-",
                    lock.remainingLease().map(d -> Durations.latency(d.toNanos())).orElse("-"),
                    lock.detail().isEmpty() ? "-" : lock.detail(),
                    lock.waiters().isPresent() ? String.valueOf(lock.waiters().getAsInt()) : "-");
        }
        out.print(table.render());
        out.printf("%d held lock%s on %s%n", locks.size(), locks.size() == 1 ? "" : "s", Connector.describe(uri));
    }

    /**
     * One row per election: its name, the leader's candidate id, the term (the election lock's fencing token) and
     * since when. An election whose lock is free but whose last leader record is still there (a leader that was
     * paused or is handing over) shows no leader and the last term.
     */
    private void printElections(PrintWriter out, Iterable<Election> elections) {
        out.println();
        TextTable table = new TextTable("election", "leader", "term", "since", "lease left").alignRight(2, 4);
        int n = 0;
        Instant now = Instant.now();
        for (Election e : elections) {
            n++;
            boolean recordIsCurrent = e.held && e.recordTerm == e.lockTerm;
            long term = e.held ? e.lockTerm : e.recordTerm;
            table.row(e.name, recordIsCurrent ? e.candidate : e.held ? "(being elected)" : "(none)",
                    term < 0 ? "-" : String.valueOf(term),
                    recordIsCurrent ? e.since.truncatedTo(ChronoUnit.MILLIS) + " ("
                            + Durations.format(Duration.between(e.since, now).truncatedTo(ChronoUnit.SECONDS)
                                    .abs()) + " ago)" : "-",
                    e.lease == null ? "-" : Durations.latency(e.lease.toNanos()));
        }
        out.print(table.render());
        out.printf("%d leader election%s on %s%n", n, n == 1 ? "" : "s", Connector.describe(uri));
    }

    /** Server text as one printable line: a control character (an escape sequence, a line break) becomes {@code ?}. */
    static String printable(String text) {
        StringBuilder b = new StringBuilder(text.length());
        text.codePoints().forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return b.toString();
    }

    /** A glob ({@code *} any run, {@code ?} one character) as a regular expression over whole names. */
    static Pattern glob(String glob) {
        StringBuilder re = new StringBuilder();
        for (char c : glob.toCharArray()) {
            re.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    /** What the election lock and the leader records of one election say. */
    static final class Election {
        final String name;
        boolean held;
        long lockTerm = -1;
        Duration lease;
        long recordTerm = -1;
        String candidate;
        Instant since;

        Election(String name) {
            this.name = name;
        }
    }
}
