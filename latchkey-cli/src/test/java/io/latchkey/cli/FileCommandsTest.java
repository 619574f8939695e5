package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code file://} in every command, on a real directory, in-process. */
class FileCommandsTest {

    @TempDir
    Path dir;

    private String uri() {
        return dir.toUri().toString();
    }

    @Test
    void inspectShowsTheHolderAndUnlockForceReleases() throws Exception {
        try (LockClient holder = LockClient.connect(uri())) {
            LockLease order = holder.lock("order:42").acquire();
            holder.lock("invoice:7").acquire();

            InProcess.Result listed = InProcess.run("inspect", uri(), "order:*");
            assertThat(listed.exitCode()).as(listed.toString()).isZero();
            assertThat(listed.stdout()).as(listed.toString()).contains("order:42")
                    .contains(" " + order.fencingToken() + " ").doesNotContain("invoice:7");

            InProcess.Result released = InProcess.run("unlock", uri(), "order:42", "--force", "--yes");
            assertThat(released.exitCode()).as(released.toString()).isZero();
            assertThat(InProcess.run("inspect", uri(), "order:*").stdout()).contains("no held locks match");
        }
    }

    @Test
    void benchAndDemoRunOnAFileDirectory() {
        InProcess.Result bench = InProcess.run("bench", uri(), "--threads", "2", "--duration", "300ms",
                "--warmup", "100ms");
        assertThat(bench.exitCode()).as(bench.toString()).isZero();

        InProcess.Result demo = InProcess.run("demo", "--no-embedded", "--backend", uri(), "--stock", "5",
                "--buyers", "10", "--clients", "2", "--threads", "2", "--strategies", "none,lock", "--no-progress");
        assertThat(demo.exitCode()).as(demo.toString()).isZero();
        Map<String, DemoTableParser.Row> rows = DemoTableParser.parse(demo.stdout());
        assertThat(rows.values()).as(demo.toString()).anyMatch(r -> r.orders() == 5 && r.oversold() == 0);
    }

    @Test
    void aBareDirectoryPathGetsNoSchemeSuggestionButAClearError() {
        InProcess.Result r = InProcess.run("inspect", "file:relative/dir");
        assertThat(r.exitCode()).as(r.toString()).isIn(1, 2);
        assertThat(r.stderr().lines().count()).as(r.toString()).isLessThanOrEqualTo(2);
    }
}
