package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child process of {@link FileCountedPrimitivesTest}: {@code CountedMain <mode> <uri> <name> <arg> [<marker>]}. It
 * prints {@code READY}, works, prints its result and then waits until its standard input ends:
 * <ul>
 *   <li>{@code permit … <watchdogMillis>}: takes a watchdog permit (watchdog timeout {@code watchdogMillis}), prints
 *       {@code LEASED <id>} and keeps it (renewed) until killed or its input ends;</li>
 *   <li>{@code countdown … <times>}: waits for the latch {@code <name>:go} (so that several children start
 *       together), counts the latch down {@code times} times, prints {@code DONE};</li>
 *   <li>{@code semaphore … <rounds> <marker>}: waits for {@code <name>:go}, then takes one permit and returns it
 *       {@code rounds} times, creating the file {@code marker} while it holds it (which fails if another holder is
 *       inside), prints {@code DONE}.</li>
 * </ul>
 */
public final class CountedMain {

    private CountedMain() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String name = args[2];
        ClientOptions.Builder options = ClientOptions.builder();
        if (mode.equals("permit")) {
            options.watchdogTimeout(Duration.ofMillis(Long.parseLong(args[3])));
        }
        try (LockClient client = LockClient.connect(args[1], options.build())) {
            System.out.println("READY " + client.clientId());
            System.out.flush();
            switch (mode) {
                case "permit" -> System.out.println("LEASED " + client.permitExpirableSemaphore(name).acquire());
                case "countdown" -> {
                    client.countDownLatch(name + ":go").await();
                    DistributedCountDownLatch latch = client.countDownLatch(name);
                    for (int i = Integer.parseInt(args[3]); i > 0; i--) {
                        latch.countDown();
                    }
                    System.out.println("DONE");
                }
                case "semaphore" -> {
                    client.countDownLatch(name + ":go").await();
                    DistributedSemaphore s = client.semaphore(name);
                    Path marker = Path.of(args[4]);
                    for (int i = Integer.parseInt(args[3]); i > 0; i--) {
                        s.acquire();
                        try {
                            Files.createFile(marker); // FileAlreadyExistsException: two holders of one permit
                            Files.delete(marker);
                        } finally {
                            s.release();
                        }
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
