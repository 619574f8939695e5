package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.sql.SqlServerExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The stock and the locks on a real PostgreSQL: {@code --database} and {@code --backend jdbc:postgresql:…}. */
class PostgresBackendIT {

    @RegisterExtension
    static final SqlServerExtension POSTGRES = SqlServerExtension.postgres();

    @Test
    void everyStrategyRunsOnPostgresAndOnlyNoneOversells() {
        String url = POSTGRES.jdbcUrl();
        CliProcess.Result r = CliProcess.run("demo", "--no-embedded", "--database", url, "--backend", url,
                "--stock", "20", "--buyers", "40", "--clients", "2", "--threads", "4", "--no-progress");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        Map<String, DemoTableParser.Row> rows = DemoTableParser.parse(r.stdout());
        assertThat(rows).as(r.toString()).containsOnlyKeys("none", "db-pessimistic", "db-optimistic",
                "lock:postgresql", "segmented:postgresql", "store:postgresql");
        assertThat(rows.get("none").oversold()).as(r.toString()).isPositive();
        rows.values().stream().filter(row -> !row.strategy().equals("none")).forEach(row -> {
            assertThat(row.oversold()).as(row.strategy() + "\n" + r).isZero();
            assertThat(row.orders()).as(row.strategy() + "\n" + r).isEqualTo(20);
        });
        assertThat(r.stdout()).contains("Stock in: postgresql at 127.0.0.1:");
    }
}
