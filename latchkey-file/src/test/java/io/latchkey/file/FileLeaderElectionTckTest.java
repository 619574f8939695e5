package io.latchkey.file;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaderElectionTck;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCK's {@link LeaderElectionTck} on a lock directory. The multi-process election TCK is not run here: its
 * SIGSTOP case needs a stopped leader to be replaced after its lease, and a stopped process keeps its OS file lock
 * (see the module README, "What it does NOT guarantee"); a SIGKILLed holder is covered by the multi-process lock TCK.
 */
class FileLeaderElectionTckTest extends LeaderElectionTck {

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
