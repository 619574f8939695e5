package io.latchkey.tck;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.LockClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The child process of {@link CountedMultiProcessTck}: {@code CountedHolderMain <mode> <uri> <name> <arg>} connects,
 * prints {@code READY <clientId>}, works, and then waits until its standard input ends (or it is killed):
 * <ul>
 *   <li>{@code permit <uri> <name> <watchdogMillis>}: takes a watchdog permit of the permit-expirable semaphore
 *       (watchdog timeout {@code watchdogMillis}) and prints {@code LEASED <permitId>};</li>
 *   <li>{@code countdown <uri> <name> <times>}: waits for the latch {@code <name>:go} (so that several children
 *       start together), counts the latch {@code <name>} down {@code times} times and prints {@code DONE}.</li>
 * </ul>
 */
public final class CountedHolderMain {

    private CountedHolderMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: CountedHolderMain permit|countdown <uri> <name> <watchdogMillis|times>");
            System.exit(2);
        }
        String mode = args[0];
        ClientOptions.Builder options = ClientOptions.builder();
        if (mode.equals("permit")) {
            options.watchdogTimeout(Duration.ofMillis(Long.parseLong(args[3])));
        }
        try (LockClient client = LockClient.connect(args[1], options.build())) {
            System.out.println("READY " + client.clientId());
            System.out.flush();
            switch (mode) {
                case "permit" -> System.out.println("LEASED " + client.permitExpirableSemaphore(args[2]).acquire());
                case "countdown" -> {
                    client.countDownLatch(args[2] + ":go").await();
                    DistributedCountDownLatch latch = client.countDownLatch(args[2]);
                    for (int i = Integer.parseInt(args[3]); i > 0; i--) {
                        latch.countDown();
                    }
                    System.out.println("DONE");
                }
                default -> throw new IllegalArgumentException("mode " + mode);
            }
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // until the parent closes our input
            }
        }
    }
}
