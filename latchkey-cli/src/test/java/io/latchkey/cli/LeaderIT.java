package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.Leadership;
import io.latchkey.LockClient;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code latchkey leader}, run as a separate process against elections this test campaigns in. */
class LeaderIT {

    private static final ClientOptions OPTIONS = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(5))
            .build();

    @Test
    void printsTheCurrentLeaderTermAndSince() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             LockClient client = LockClient.connect(zk.uri(), OPTIONS)) {
            CliProcess.Result none = CliProcess.run("leader", zk.uri(), "billing");
            assertThat(none.exitCode()).as(none.toString()).isZero();
            assertThat(none.stdout()).contains("no leader of 'billing'");

            try (Leadership l = client.leaderElection("billing", "node-a").awaitLeadership()) {
                CliProcess.Result r = CliProcess.run("leader", zk.uri(), "billing");
                assertThat(r.exitCode()).as(r.toString()).isZero();
                assertThat(r.stdout()).contains("leader of 'billing'", "candidate node-a", "term " + l.term(),
                        "since " + l.since().toString().substring(0, 16));
            }
            CliProcess.Result bad = CliProcess.run("leader", zk.uri(), "x".repeat(300));
            assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(2);
            assertThat(bad.stderr()).contains("200 characters");
        }
    }

    @Test
    void watchPrintsALinePerChange() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             LockClient client = LockClient.connect(zk.uri(), OPTIONS)) {
            Process watch = new ProcessBuilder(List.of(
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                    CliProcess.jar().toString(), "leader", zk.uri(), "jobs", "--watch", "--interval", "200ms"))
                    .redirectErrorStream(true).start();
            LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(watch.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (java.io.IOException e) {
                    // the process ended
                }
            }, "leader-it-watch-stdout");
            reader.setDaemon(true);
            reader.start();
            try {
                assertThat(lines.poll(60, TimeUnit.SECONDS)).contains("no leader of 'jobs'");
                Leadership first = client.leaderElection("jobs", "node-a").awaitLeadership();
                assertThat(lines.poll(30, TimeUnit.SECONDS)).contains("candidate node-a, term " + first.term());
                first.close();
                assertThat(lines.poll(30, TimeUnit.SECONDS)).contains("no leader of 'jobs'");
                try (Leadership second = client.leaderElection("jobs", "node-b").awaitLeadership()) {
                    assertThat(lines.poll(30, TimeUnit.SECONDS)).contains("candidate node-b, term " + second.term());
                    assertThat(second.term()).isGreaterThan(first.term());
                }
            } finally {
                watch.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
