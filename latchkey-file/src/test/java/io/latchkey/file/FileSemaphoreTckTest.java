package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.SemaphoreTck;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The TCK's {@link SemaphoreTck} on a lock directory (one per test class). */
class FileSemaphoreTckTest extends SemaphoreTck {

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
}
