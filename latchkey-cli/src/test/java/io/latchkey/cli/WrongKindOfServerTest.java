package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.RedisServerExtension;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A URI that names the wrong kind of server: a web server behind a {@code redis://} URI, a Redis server behind a
 * {@code jdbc:postgresql:} URI. The command says so in one line ("no redis server answered there"), not with the
 * driver's decoding error, and answers within its timeout plus one second with the default timeout too.
 */
class WrongKindOfServerTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    private static ImpostorServer http;
    private static ImpostorServer html;

    @BeforeAll
    static void start() throws IOException {
        http = ImpostorServer.http();
        html = ImpostorServer.html();
        // load the drivers' classes once, as TimeoutsTest does, so the runs below measure the command
        InProcess.run("inspect", "redis://127.0.0.1:" + http.port(), "--timeout", "2s");
        InProcess.run("inspect", "jdbc:postgresql://127.0.0.1:" + http.port() + "/x", "--timeout", "2s");
    }

    @AfterAll
    static void stop() throws IOException {
        http.close();
        html.close();
    }

    @Test
    void aWebServerBehindARedisUriIsNamedAsNotRedis() {
        for (ImpostorServer server : new ImpostorServer[] {html, http}) {
            InProcess.Result r = InProcess.run("inspect", "redis://127.0.0.1:" + server.port(), "--timeout", "2s");
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
            assertThat(r.stderr()).as(r.toString())
                    .startsWith("latchkey: reached 127.0.0.1:" + server.port() + ", but no redis server answered there")
                    .contains("is it a redis server?").doesNotContain("refused").doesNotContain("Exception");
            assertThat(r.stderr().strip().lines()).as(r.toString()).hasSize(1);
            assertThat(r.took()).as(r.toString()).isLessThanOrEqualTo(Duration.ofSeconds(3));
        }
    }

    @Test
    void everyBackendNamesAWebServerAsTheWrongKindWithinItsTimeout() {
        String[][] cases = {
                {"redis://127.0.0.1:%d", "redis"},
                {"zookeeper://127.0.0.1:%d", "zookeeper"},
                {"etcd://127.0.0.1:%d", "etcd"},
                {"jdbc:postgresql://127.0.0.1:%d/x", "postgresql"},
                {"jdbc:mariadb://127.0.0.1:%d/x", "mariadb"}};
        for (String[] c : cases) {
            InProcess.Result r = runInTime(Duration.ofSeconds(2), "inspect", String.format(c[0], html.port()),
                    "--timeout", "1s");
            assertThat(r.stderr()).as(r.toString()).startsWith("latchkey: reached 127.0.0.1:" + html.port())
                    .contains("no " + c[1] + " server answered there");
        }
    }

    /** The case as reported: 11.3–11.9 s with the default 5 s timeout, because the driver retried without TLS. */
    @Test
    void aRedisServerBehindAPostgresqlUriAnswersWithinTheDefaultTimeout() {
        InProcess.Result r = runInTime(Duration.ofSeconds(6), "inspect",
                "jdbc:postgresql://127.0.0.1:" + REDIS.port() + "/x");
        assertThat(r.stderr()).as(r.toString())
                .startsWith("latchkey: reached 127.0.0.1:" + REDIS.port() + ", but no postgresql server answered there");
    }

    /** As in TimeoutsTest: a run over the bound is repeated once (a loaded CI machine can starve one run). */
    private static InProcess.Result runInTime(Duration bound, String... args) {
        InProcess.Result r = InProcess.run(args);
        if (r.took().compareTo(bound) > 0) {
            r = InProcess.run(args);
        }
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.took()).as(r.toString()).isLessThanOrEqualTo(bound);
        assertThat(r.stderr().strip().lines()).as("one line\n" + r).hasSize(1);
        return r;
    }
}
