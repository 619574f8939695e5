package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flash-sale demo's {@code store} row on a real directory, in-process: the stock in the lock's fenced store, one
 * buyer in 25 paused past its lease; its stale write is refused, so nothing is oversold and no decrement is lost.
 */
class FencedStoreDemoTest {

    @TempDir
    Path dir;

    @Test
    void theStoreRowNeverOversellsAndRefusesThePausedBuyersWrites() {
        InProcess.Result demo = InProcess.run("demo", "--no-embedded", "--backend", dir.toUri().toString(), "--stock",
                "20", "--buyers", "40", "--clients", "2", "--threads", "2", "--strategies", "store", "--no-progress");
        assertThat(demo.exitCode()).as(demo.toString()).isZero();
        System.out.println(demo.stdout());
        Map<String, DemoTableParser.Row> rows = DemoTableParser.parse(demo.stdout());
        assertThat(rows).as(demo.toString()).hasSize(1);
        DemoTableParser.Row row = rows.values().iterator().next();
        assertThat(row.strategy()).startsWith("store:");
        assertThat(row.orders()).as(demo.toString()).isEqualTo(20);
        assertThat(row.oversold()).isZero();
        assertThat(row.finalStock()).isZero();
        assertThat(row.failed()).as("the paused buyers' refused writes: %s", demo).isPositive();
    }
}
