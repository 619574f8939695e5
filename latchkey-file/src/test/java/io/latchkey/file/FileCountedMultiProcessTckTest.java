package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.CountedMultiProcessTck;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCK's {@link CountedMultiProcessTck} on a lock directory: a SIGKILLed JVM's watchdog permit (a lease line in
 * the state file, renewed by its watchdog) returns after its lease and not before; count-downs of three JVMs at once
 * are never lost (each one read-modify-write of the state file under the directory's lock).
 */
class FileCountedMultiProcessTckTest extends CountedMultiProcessTck {

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

    /** 1.5 s, as the test this replaced measured (1.2–1.5 s back after a SIGKILL). */
    @Override
    protected java.time.Duration watchdogTimeout() {
        return java.time.Duration.ofMillis(1500);
    }
}
