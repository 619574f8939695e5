package io.latchkey.file;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A directory the process may not write fails at connect, naming why, rather than at the first acquire. */
class FileConnectErrorsTest {

    @TempDir
    Path root;

    @Test
    void aDirectoryThatCannotBeWrittenFailsAtConnect() throws Exception {
        Path dir = Files.createDirectory(root.resolve("read-only"));
        readOnly(dir, true);
        try {
            assertThatThrownBy(() -> LockClient.connect(dir.toUri().toString()).close())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("not writable")
                    .hasMessageContaining(dir.toString());
        } finally {
            readOnly(dir, false);
        }
    }

    /**
     * Root writes through permission bits, so as root the directory is made immutable ({@code chattr +i}: nothing
     * can be created in it, not even by root); other users get its write bits removed.
     */
    private static void readOnly(Path dir, boolean on) throws IOException, InterruptedException {
        if ("root".equals(System.getProperty("user.name"))) {
            Process chattr = new ProcessBuilder("chattr", on ? "+i" : "-i", dir.toString())
                    .redirectErrorStream(true).start();
            String out = new String(chattr.getInputStream().readAllBytes());
            if (chattr.waitFor() != 0) {
                throw new IOException("chattr failed: " + out);
            }
        } else {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(on ? "r-xr-xr-x" : "rwxr-xr-x"));
        }
    }
}
