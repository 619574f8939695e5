package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code bench}, {@code inspect} and {@code unlock}, run as a separate process. */
class AdminCommandsIT {

    @Test
    void benchPrintsOneRowPerThreadCountAndMode() {
        CliProcess.Result r = CliProcess.run("bench", "mem://it-bench", "--threads", "1,2", "--duration", "300ms",
                "--warmup", "100ms");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.stdout()).contains("cycles/s").contains("p99");
        assertThat(r.stdout().lines().filter(l -> l.matches("\\s*[12]\\s+(distinct|shared)\\s+.*"))).hasSize(4);
    }

    @Test
    void inspectOfAFreshMemServerSaysNothingIsHeld() {
        // Every backend lists its locks now; a mem:// server lives in the process, so a new one holds nothing.
        CliProcess.Result r = CliProcess.run("inspect", "mem://it-inspect");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.stdout()).contains("no held locks match '*'");
    }

    @Test
    void unlockNeedsForceAndConfirmation() {
        CliProcess.Result noForce = CliProcess.run("unlock", "mem://it-unlock", "orders");
        assertThat(noForce.exitCode()).isEqualTo(2);
        assertThat(noForce.stderr()).contains("without --force");

        CliProcess.Result declined = CliProcess.runWithInput("n\n", Duration.ofSeconds(60), "unlock",
                "mem://it-unlock", "orders", "--force");
        assertThat(declined.exitCode()).isEqualTo(1);
        assertThat(declined.stderr()).contains("[y/N]").contains("not released");

        CliProcess.Result confirmed = CliProcess.runWithInput("y\n", Duration.ofSeconds(60), "unlock",
                "mem://it-unlock", "orders", "--force");
        assertThat(confirmed.exitCode()).as(confirmed.toString()).isZero();
        assertThat(confirmed.stdout()).contains("'orders' was not held");

        CliProcess.Result yes = CliProcess.run("unlock", "mem://it-unlock", "orders", "--force", "--yes");
        assertThat(yes.exitCode()).isZero();
        assertThat(yes.stderr()).doesNotContain("[y/N]");
    }
}
