package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.PermitExpirableSemaphoreTck;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The TCK's {@link PermitExpirableSemaphoreTck} on a lock directory (one per test class). */
class FilePermitExpirableSemaphoreTckTest extends PermitExpirableSemaphoreTck {

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
