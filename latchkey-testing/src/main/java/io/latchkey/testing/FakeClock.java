package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A server's wall clock that a test can move: the server runs under libfaketime (Debian's {@code faketime}
 * package), which reads the clock's offset from a file on every call, so {@link #jump(Duration)} moves the server's
 * {@code CLOCK_REALTIME} at once. The monotonic clock is left alone ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}): only
 * what a server computes from wall-clock time moves (PostgreSQL's {@code now()}, for instance).
 *
 * <p>Works for servers that call the C library for the time. It does not for Debian's {@code redis-server} (its
 * jemalloc calls {@code clock_gettime} while libfaketime 0.9.10 initialises, and the server does not start), nor for
 * etcd (Go reads the clock through the vDSO, not the C library), nor for a JVM's {@code System.nanoTime()}.
 *
 * <p>Not thread-safe: drive it from one thread.
 */
public final class FakeClock {

    /** The install command named when libfaketime is missing. */
    public static final String INSTALL_HINT = "sudo apt-get install faketime";

    private static final List<Path> LIBRARY_DIRS = List.of(Path.of("/usr/lib/x86_64-linux-gnu/faketime"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime"), Path.of("/usr/lib/faketime"),
            Path.of("/usr/local/lib/faketime"));

    private final Path library;
    private final Path offsetFile;
    private Duration offset = Duration.ZERO;

    private FakeClock(Path library, Path offsetFile) {
        this.library = library;
        this.offsetFile = offsetFile;
    }

    /** libfaketime's shared library, if installed. */
    public static Optional<Path> library() {
        for (Path dir : LIBRARY_DIRS) {
            Path lib = dir.resolve("libfaketime.so.1");
            if (Files.isRegularFile(lib)) {
                return Optional.of(lib);
            }
        }
        return Optional.empty();
    }

    /**
     * A clock at real time whose offset lives in {@code dir} (readable by every user: a server may run as another).
     *
     * @throws IllegalStateException if libfaketime is not installed, naming {@link #INSTALL_HINT}
     */
    public static FakeClock create(Path dir) {
        Path lib = library().orElseThrow(() -> new IllegalStateException(String.format(
                "libfaketime was not found in %s; a clock jump needs it. Install it with `%s` "
                        + "(or run scripts/install-test-servers.sh from the project root).", LIBRARY_DIRS,
                INSTALL_HINT)));
        FakeClock clock = new FakeClock(lib, dir.toAbsolutePath().resolve("faketime-offset"));
        clock.write();
        return clock;
    }

    /** {@code command} prefixed with {@code env} and the variables that run it on this clock. */
    public List<String> wrap(List<String> command) {
        List<String> c = new ArrayList<>(List.of("env", "LD_PRELOAD=" + library,
                "FAKETIME_TIMESTAMP_FILE=" + offsetFile, "FAKETIME_NO_CACHE=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"));
        c.addAll(command);
        return c;
    }

    /** Moves the clock by {@code by} (forward if positive) from where it is; takes effect on the server's next call. */
    public void jump(Duration by) {
        offset = offset.plus(by);
        write();
    }

    /** How far the clock is from real time. */
    public Duration offset() {
        return offset;
    }

    private void write() {
        try {
            Path tmp = offsetFile.resolveSibling(offsetFile.getFileName() + ".tmp");
            Files.writeString(tmp, (offset.isNegative() ? "" : "+") + offset.toSeconds() + "\n");
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            Files.move(tmp, offsetFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the fake clock's offset " + offsetFile, e);
        }
    }
}
