package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A child process for {@link RedisFairLockTest}: {@code FairWaiterMain <uri> <name> <watchdogMillis>} connects,
 * prints {@code WAITING <clientId>} and waits for the fair lock (up to a minute; the test kills it meanwhile),
 * printing {@code LOCKED} if it gets it. Exits when its standard input ends.
 */
public final class FairWaiterMain {

    private FairWaiterMain() {
    }

    public static void main(String[] args) throws Exception {
        ClientOptions options = ClientOptions.builder()
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2]))).build();
        try (LockClient client = LockClient.connect(args[0], options)) {
            Thread exitOnEof = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // until the parent closes our input
                    }
                } catch (java.io.IOException ignored) {
                    // the parent is gone
                }
                System.exit(0);
            }, "fair-waiter-stdin");
            exitOnEof.setDaemon(true);
            exitOnEof.start();
            System.out.println("WAITING " + client.clientId());
            System.out.flush();
            if (client.fairLock(args[1]).tryLock(60, TimeUnit.SECONDS)) {
                System.out.println("LOCKED");
                System.out.flush();
            }
        }
    }
}
