package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the file backend's own tests share: a fresh lock directory per test ({@link #dir}, {@link #uri}), clients on
 * it that are closed after the test, a listing of its files, and the time bounds of tests that start JVMs.
 */
abstract class FileDirectoryTest {

    /** How long a child JVM may take to start on a busy machine. */
    static final Duration START_UP = Duration.ofSeconds(40);
    /** What a timing bound allows beyond the lease or watchdog it checks. */
    static final Duration SLACK = Duration.ofSeconds(5);

    @TempDir
    Path root;
    Path dir;
    String uri;
    private final List<LockClient> clients = new ArrayList<>();

    @BeforeEach
    void setUpDirectory() {
        dir = root.resolve("locks");
        uri = dir.toUri().toString();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    /** A client with a roomy watchdog timeout: these tests are about files and processes, not renewal timing. */
    FileLockClient open() {
        return open(ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(3)).build());
    }

    /** A client on {@link #uri}, closed after the test. */
    FileLockClient open(ClientOptions options) {
        FileLockClient c = (FileLockClient) LockClient.connect(uri, options);
        clients.add(c);
        return c;
    }

    /** The names of the directory's files, sorted. */
    List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
