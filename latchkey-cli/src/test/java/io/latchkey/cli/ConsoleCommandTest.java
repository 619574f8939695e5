package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code latchkey console}'s option checks (before anything connects or listens). */
class ConsoleCommandTest {

    @Test
    void refusesANonLoopbackAddressWithoutAToken() {
        InProcess.Result r = InProcess.run("console", "mem://console-test", "--bind", "0.0.0.0", "--port", "0");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(CliException.USAGE);
        assertThat(r.stderr()).contains("refusing to listen on 0.0.0.0:0 without an access token")
                .contains("--token").contains(ConsoleCommand.TOKEN_ENV);
        assertThat(r.took().toMillis()).as("refused before connecting").isLessThan(5_000);
    }

    @Test
    void refusesATokenTooShortOrWithOtherCharacters() {
        InProcess.Result shortToken = InProcess.run("console", "mem://console-test", "--token", "abc");
        assertThat(shortToken.exitCode()).as(shortToken.toString()).isEqualTo(CliException.USAGE);
        assertThat(shortToken.stderr()).contains("16 to 256").contains("has 3 characters")
                .doesNotContain("abc");
        InProcess.Result semicolon = InProcess.run("console", "mem://console-test", "--token",
                "ops=aaaaaaaaaaaaaaaa;bbbb");
        assertThat(semicolon.exitCode()).as(semicolon.toString()).isEqualTo(CliException.USAGE);
    }

    @Test
    void refusesAnIntervalOutOfRangeAndABadPort() {
        InProcess.Result interval = InProcess.run("console", "mem://console-test", "--interval", "10ms");
        assertThat(interval.exitCode()).as(interval.toString()).isEqualTo(CliException.USAGE);
        assertThat(interval.stderr()).contains("--interval must be from 50ms to 1m but was 10ms");
        InProcess.Result port = InProcess.run("console", "mem://console-test", "--port", "70000");
        assertThat(port.exitCode()).as(port.toString()).isEqualTo(CliException.USAGE);
        assertThat(port.stderr()).contains("--port must be 0 to 65535 but was 70000");
    }
}
