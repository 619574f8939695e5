package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Child process of {@link FileCountedPrimitivesTest}: {@code CountedMain <mode> <uri> <name> <arg> [<marker>]}. It
 * prints {@code READY}, works, prints its result and then waits until its standard input ends:
 * (Killed permit holders and racing count-downs are the TCK's {@code CountedMultiProcessTck}, with its own child.)
 * <ul>
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
        try (LockClient client = LockClient.connect(args[1], options.build())) {
            System.out.println("READY " + client.clientId());
            System.out.flush();
            switch (mode) {
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
