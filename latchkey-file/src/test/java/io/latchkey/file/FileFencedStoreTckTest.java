package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.FencedStoreTck;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCK's {@link FencedStoreTck} on a lock directory. The multi-process election TCK is not run here: its
 * SIGSTOP case needs a stopped leader to be replaced after its lease, and a stopped process keeps its OS file lock
 * (see the module README, "What it does NOT guarantee"); a SIGKILLed holder is covered by the multi-process lock TCK.
 */
class FileFencedStoreTckTest extends FencedStoreTck {

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
