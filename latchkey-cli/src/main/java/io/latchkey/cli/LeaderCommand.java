package io.latchkey.cli;

import io.latchkey.LeaderElection;
import io.latchkey.LeaderInfo;
import io.latchkey.LockClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code latchkey leader URI NAME [--watch]}: who leads an election now (candidate id, term, since); with
 * {@code --watch}, a line per change until interrupted.
 */
@Command(name = "leader", mixinStandardHelpOptions = true,
        description = "Show who leads the leader election NAME: candidate id, term (its fencing token) and since "
                + "when. With --watch, print a line each time the leader changes, until interrupted (Ctrl-C).")
final class LeaderCommand implements Callable<Integer> {

    @Mixin
    GlobalOptions global;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "URI", description = "The backend, e.g. redis://localhost:6379.")
    String uri;

    @Parameters(index = "1", paramLabel = "NAME", description = "The election's name.")
    String name;

    @Option(names = "--watch", description = "Follow the leader: a line per change, until interrupted.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s",
            description = "How often --watch asks the backend (default: ${DEFAULT-VALUE}), e.g. 200ms, 2s.")
    Duration interval;

    @Override
    public Integer call() throws InterruptedException {
        if (interval.isNegative() || interval.isZero()) {
            throw new CliException(CliException.USAGE,
                    String.format("--interval must be positive but was %s", Durations.format(interval)));
        }
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient client = Connector.open(uri, global.timeout)) {
            LeaderElection election;
            try {
                election = client.leaderElection(name);
            } catch (IllegalArgumentException e) {
                throw new CliException(CliException.USAGE, e.getMessage());
            }
            Optional<LeaderInfo> leader = read(election);
            if (!watch) {
                out.println(describe(leader, Instant.now()));
                out.flush();
                return 0;
            }
            out.println(stamp() + describe(leader, Instant.now()));
            out.flush();
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(interval.toMillis());
                Optional<LeaderInfo> now = read(election);
                if (!now.equals(leader)) {
                    out.println(stamp() + describe(now, Instant.now()));
                    out.flush();
                    leader = now;
                }
            }
            return 0;
        }
    }

    private Optional<LeaderInfo> read(LeaderElection election) {
        try {
            return election.currentLeader();
        } catch (UnsupportedOperationException e) {
            throw new CliException(CliException.UNSUPPORTED, String.format(
                    "this backend cannot tell who leads (%s): %s", Connector.describe(uri), e.getMessage()));
        } catch (RuntimeException e) {
            throw Connector.translate(uri, global.timeout, e);
        }
    }

    private String describe(Optional<LeaderInfo> leader, Instant now) {
        if (leader.isEmpty()) {
            return String.format("no leader of '%s' on %s", name, Connector.describe(uri));
        }
        LeaderInfo l = leader.get();
        Duration age = Duration.between(l.since(), now);
        return String.format("leader of '%s' on %s: candidate %s, term %d, since %s (%s ago)", name,
                Connector.describe(uri), l.candidateId(), l.term(), l.since().truncatedTo(ChronoUnit.MILLIS),
                age.isNegative() ? "0s" : Durations.format(age.truncatedTo(ChronoUnit.SECONDS)));
    }

    private static String stamp() {
        return LocalTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS) + "Z ";
    }
}
