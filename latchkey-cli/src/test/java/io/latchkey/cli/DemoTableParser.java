package io.latchkey.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/** Reads the demo's result table back from stdout: strategy → the numbers in its row. */
final class DemoTableParser {

    record Row(String strategy, int orders, int finalStock, int oversold, long failed) {
    }

    private DemoTableParser() {
    }

    static Map<String, Row> parse(String stdout) {
        Map<String, Row> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : stdout.split("\\R")) {
            if (line.startsWith("strategy ")) {
                inTable = true;
                continue;
            }
            if (!inTable || line.startsWith("---")) {
                continue;
            }
            if (line.isBlank()) {
                break;
            }
            String[] cells = line.trim().split("\\s{2,}");
            rows.put(cells[0], new Row(cells[0], Integer.parseInt(cells[1]), Integer.parseInt(cells[2]),
                    Integer.parseInt(cells[3]), Long.parseLong(cells[4])));
        }
        return rows;
    }
}
