package io.latchkey.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.io.IOException;
import java.time.Duration;

/**
 * The child process of {@link MultiProcessTck}: {@code LockHolderMain <uri> <lockName> <watchdogMillis>} connects,
 * prints {@code WAITING}, acquires a watchdog-renewed lease, prints {@code LOCKED <fencingToken>}, and holds it
 * until its standard input ends (then releases it and prints {@code RELEASED}) — or until it is killed.
 */
public final class LockHolderMain {

    private LockHolderMain() {
    }

    public static void main(String[] args) throws InterruptedException, IOException {
        if (args.length != 3) {
            System.err.println("usage: LockHolderMain <uri> <lockName> <watchdogMillis>");
            System.exit(2);
        }
        ClientOptions options = ClientOptions.builder()
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        try (LockClient client = LockClient.connect(args[0], options)) {
            System.out.println("WAITING " + client.clientId());
            System.out.flush();
            LockLease lease = client.lock(args[1]).acquire();
            System.out.println("LOCKED " + lease.fencingToken());
            System.out.flush();
            while (System.in.read() >= 0) {
                // Hold until the parent closes our input.
            }
            lease.release();
            System.out.println("RELEASED");
            System.out.flush();
        }
    }
}
