package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaseContractTck;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The TCK's {@link LeaseContractTck} on a lock directory (one per test class). */
class FileLeaseContractTckTest extends LeaseContractTck {

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
