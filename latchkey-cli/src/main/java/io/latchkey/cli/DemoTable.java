package io.latchkey.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The demo's result table and the lines that explain its columns. */
final class DemoTable {

    static final String[] HEADER = {"strategy", "orders", "final stock", "oversold", "failed", "throughput",
        "p50 acquire", "p99 acquire"};

    private DemoTable() {
    }

    static String render(List<SaleResult> results) {
        TextTable table = new TextTable(HEADER).alignRight(1, 2, 3, 4, 5, 6, 7);
        for (SaleResult r : results) {
            table.row(r.strategy(), String.valueOf(r.orders()), String.valueOf(r.finalStock()),
                    String.valueOf(r.oversold()), String.valueOf(r.failedAttempts()), throughput(r),
                    Durations.latency(r.p50Nanos()), Durations.latency(r.p99Nanos()));
        }
        return table.render();
    }

    static String throughput(SaleResult r) {
        return String.format(Locale.ROOT, "%,.0f/s", r.throughput());
    }

    static List<String> legend(List<SaleResult> results) {
        List<String> lines = new ArrayList<>();
        lines.add("oversold = orders beyond the stock; failed = attempts that lost a race (version conflicts, lock "
                + "timeouts);");
        lines.add("throughput = buyers served per second; acquire = wait for the lock, the row lock, or until the "
                + "version CAS won.");
        for (SaleResult r : results) {
            if (r.lostUpdates() > 0) {
                lines.add(String.format("%s also lost %d stock updates: the stock shows %d after %d orders for %d "
                        + "items.", r.strategy(), r.lostUpdates(), r.finalStock(), r.orders(), r.stock()));
            }
            if (r.gaveUp() > 0) {
                lines.add(String.format("%s: %d buyers gave up while items were left (retries or lock wait "
                        + "exhausted).", r.strategy(), r.gaveUp()));
            }
        }
        return lines;
    }
}
