package io.latchkey.file;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Child process of {@link FileLockClientTest}: {@code CounterMain <uri> <lockName> <counterFile> <times>} increments
 * the number in {@code counterFile} {@code times} times, each read-modify-write under the lock (no atomicity of its
 * own: a lost update means two holders at once), then prints {@code DONE}. Each holder also creates
 * {@code <counterFile>.inside} exclusively on entry and deletes it before unlocking, so that two holders at once fail
 * loudly (an {@link IllegalStateException}) rather than only by a lost update.
 */
public final class CounterMain {

    private CounterMain() {
    }

    public static void main(String[] args) throws IOException {
        try (LockClient client = LockClient.connect(args[0])) {
            System.out.println("STARTED");
            System.out.flush();
            increment(client.lock(args[1]), Path.of(args[2]), Integer.parseInt(args[3]));
            System.out.println("DONE");
            System.out.flush();
        }
    }

    static void increment(DistributedLock lock, Path counter, int times) throws IOException {
        Path inside = counter.resolveSibling(counter.getFileName() + ".inside");
        for (int i = 0; i < times; i++) {
            lock.lock();
            try {
                try {
                    Files.createFile(inside); // exclusive: fails if another holder is inside too
                } catch (FileAlreadyExistsException e) {
                    throw new IllegalStateException("two holders of the lock at once: " + inside + " exists", e);
                }
                String text = Files.exists(counter) ? Files.readString(counter, StandardCharsets.UTF_8).trim() : "";
                long value = text.isEmpty() ? 0 : Long.parseLong(text);
                Files.writeString(counter, Long.toString(value + 1), StandardCharsets.UTF_8);
                Files.delete(inside);
            } finally {
                lock.unlock();
            }
        }
    }
}
