package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.ServerStateTck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCK's {@link ServerStateTck}: the "server" is the lock directory, its objects are the files in it. Losing the
 * server's data is the directory emptied while no lock is held (what a reboot does to a lock directory on tmpfs,
 * such as {@code /run/lock}): the token counter file is gone, and tokens must still grow — they do because a token is
 * {@code max(last + 1, wall clock in µs)}. {@link FileLockClientTest} also covers the plain case: every process
 * restarted with the counter file intact.
 */
class FileServerStateTckTest extends ServerStateTck {

    @TempDir
    static Path dir;

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(dir.toUri().toString(), options);
    }

    @Override
    protected String backendName() {
        return "file";
    }

    /** Every file in the directory: one {@code latchkey.state} plus one per held name. */
    @Override
    protected long serverObjects() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.count();
        }
    }

    @Override
    protected void loseServerData() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.delete(p);
            }
        }
    }
}
