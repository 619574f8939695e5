package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories and free ports for server fixtures. */
public final class TestFiles {

    private TestFiles() {
    }

    /** A fresh temporary directory whose name starts with {@code prefix}. */
    public static Path createTempDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temporary directory", e);
        }
    }

    /** Deletes {@code dir} and everything under it; quiet if it is already gone. */
    public static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // Best effort: a leftover temp file must not fail a test.
                }
            });
        } catch (IOException e) {
            // Same.
        }
    }

    /**
     * A TCP port on 127.0.0.1 that was free a moment ago. Another process may take it before the server binds
     * it, so fixtures retry start-up with a new port when the bind fails.
     */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not find a free port", e);
        }
    }
}
