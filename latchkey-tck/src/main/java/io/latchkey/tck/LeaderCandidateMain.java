package io.latchkey.tck;

import io.latchkey.ClientOptions;
import io.latchkey.Leadership;
import io.latchkey.LockClient;
import io.latchkey.LockLostException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The child process of {@link LeaderElectionMultiProcessTck}:
 * {@code LeaderCandidateMain <uri> <election> <watchdogMillis> <candidateId> <registerFile>} connects, prints
 * {@code WAITING}, campaigns, prints {@code LEADER <term>}, then — inside {@link Leadership#runWhileValid} — writes
 * its term to the {@link FileFencedRegister} every 50 ms while {@link Leadership#isValid()}, printing
 * {@code ATTEMPT <term>} once the check passed and {@code WROTE <term>} or {@code REFUSED <term>} after the write. When the leadership is lost it prints
 * {@code REVOKED} (from {@code onRevoked}) and {@code INTERRUPTED} (when the task was stopped); then it waits for
 * its standard input to end.
 */
public final class LeaderCandidateMain {

    private LeaderCandidateMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: LeaderCandidateMain <uri> <election> <watchdogMillis> <candidateId> "
                    + "<registerFile>");
            System.exit(2);
        }
        ClientOptions options = ClientOptions.builder()
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        FileFencedRegister register = new FileFencedRegister(Path.of(args[4]));
        try (LockClient client = LockClient.connect(args[0], options)) {
            print("WAITING " + client.clientId());
            Leadership leadership = client.leaderElection(args[1], args[3]).awaitLeadership();
            long term = leadership.term();
            print("LEADER " + term);
            leadership.onRevoked(() -> print("REVOKED"));
            try {
                leadership.runWhileValid(() -> {
                    while (true) {
                        Thread.sleep(50);
                        if (leadership.isValid()) {
                            print("ATTEMPT " + term);
                            print((register.write(term) ? "WROTE " : "REFUSED ") + term);
                        }
                    }
                });
            } catch (LockLostException e) {
                print("INTERRUPTED " + e.getCause());
            }
            while (System.in.read() >= 0) {
                // Wait until the parent closes our input.
            }
            leadership.close();
        }
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
