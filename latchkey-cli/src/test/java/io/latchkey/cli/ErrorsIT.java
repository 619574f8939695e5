package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** What users see when they get something wrong: one line, an exit code, never a password. */
class ErrorsIT {

    @Test
    void unknownSchemeListsTheSupportedOnes() {
        CliProcess.Result r = CliProcess.run("inspect", "foo://user:hunter22@host:1");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("unsupported URI scheme 'foo://'").contains("supported schemes:")
                .contains("redis://").contains("mem://").doesNotContain("hunter22");
        assertThat(r.stderr().strip().lines()).hasSize(1);
    }

    @Test
    void unreachableServerIsOneLineWithHostAndTimeoutAndNoPassword() throws IOException {
        int port = closedPort();
        String uri = "redis://admin:hunter22@127.0.0.1:" + port;
        CliProcess.Result r = CliProcess.run("bench", uri, "--timeout", "1s");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr().strip().lines()).as(r.toString()).hasSize(1);
        assertThat(r.stderr()).contains("cannot reach").contains("127.0.0.1:" + port).contains("1s")
                .doesNotContain("hunter22").doesNotContain("Exception");
        assertThat(r.stdout()).doesNotContain("hunter22");
    }

    @Test
    void verboseShowsTheStackTraceStillWithoutThePassword() throws IOException {
        int port = closedPort();
        CliProcess.Result r = CliProcess.run("inspect", "redis://:hunter22@127.0.0.1:" + port, "--timeout", "1s",
                "--verbose");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr()).contains("\tat ").doesNotContain("hunter22");
    }

    @Test
    void passwordsInJdbcQueryParametersAreMaskedToo() {
        CliProcess.Result r = CliProcess.run("demo", "--backend", "nosuch://h/db?user=a&password=hunter22");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("password=****").doesNotContain("hunter22");
    }

    @Test
    void unknownOptionNamesTheOptionAndTheHelp() {
        CliProcess.Result r = CliProcess.run("demo", "--stok", "5");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("Unknown option").contains("'--stok'").contains("--stock").contains("latchkey demo --help");
    }

    @Test
    void demoWithAnUnreachableBackendFailsBeforeRunningAnything() throws IOException {
        int port = closedPort();
        CliProcess.Result r = CliProcess.run("demo", "--no-embedded", "--backend",
                "zookeeper://admin:hunter22@127.0.0.1:" + port, "--timeout", "1s", "--no-progress");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).contains("cannot reach zookeeper at 127.0.0.1:" + port + " within 1s")
                .doesNotContain("hunter22");
        assertThat(r.stdout()).doesNotContain("strategy").doesNotContain("hunter22");
    }

    @Test
    void noArgumentsListsTheCommands() {
        CliProcess.Result r = CliProcess.run();
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("Usage: latchkey").contains("demo").contains("unlock");
    }

    @Test
    void helpPrintsUsage() {
        CliProcess.Result r = CliProcess.run("--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).contains("demo").contains("bench").contains("inspect").contains("unlock");
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
