package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code verify --lease} has two defaults, one per mode: the plain verifier's fixed-lease expiry check (1 s) and the
 * fault run's workers' watchdog (2 s). The help text and {@code docs/faults.md} both say what the code does.
 */
class VerifyLeaseDefaultsTest {

    @Test
    void helpAndDocsStateTheLeaseDefaultsTheCodeUses() throws Exception {
        InProcess.Result help = InProcess.run("verify", "--help");
        assertThat(help.exitCode()).as(help.toString()).isZero();
        String text = help.stdout().replaceAll("\\s+", " ");
        String plainDefault = Main.commandLine(new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter()))
                .getSubcommands().get("verify").getCommandSpec().findOption("--lease").defaultValue();
        assertThat(plainDefault).isEqualTo("1s");
        assertThat(text).contains("The fixed lease of the expiry check (default: 1s)")
                .contains("With --faults: the workers' watchdog timeout, on ZooKeeper their session timeout "
                        + "(default there: " + Durations.format(VerifyFaults.DEFAULT_LEASE) + ")");
        assertThat(VerifyFaults.DEFAULT_LEASE).isEqualTo(Duration.ofSeconds(2));
        String docs = Files.readString(Path.of("..", "docs", "faults.md"));
        assertThat(docs).contains("`--lease D` (default " + Durations.format(VerifyFaults.DEFAULT_LEASE)
                + ": the workers' watchdog timeout");
    }
}
