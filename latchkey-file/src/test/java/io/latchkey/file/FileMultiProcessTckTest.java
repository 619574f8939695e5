package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.MultiProcessTck;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCK's {@link MultiProcessTck}: child JVMs lock files in the same directory; a SIGKILLed holder's OS lock is
 * released by the kernel at once, and the waiter in the other JVM notices within one re-check (at most 200 ms),
 * well inside the watchdog timeout the TCK allows.
 */
class FileMultiProcessTckTest extends MultiProcessTck {

    @TempDir
    static Path dir;

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(childUri(), options);
    }

    @Override
    protected String childUri() {
        return dir.toUri().toString();
    }

    @Override
    protected String backendName() {
        return "file";
    }
}
