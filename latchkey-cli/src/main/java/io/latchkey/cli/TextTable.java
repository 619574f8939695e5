package io.latchkey.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A plain-text table with a header, padded columns and chosen right-aligned (numeric) columns. */
final class TextTable {

    private final String[] header;
    private final List<String[]> rows = new ArrayList<>();
    private final Set<Integer> right = new HashSet<>();

    TextTable(String... header) {
        this.header = header.clone();
    }

    TextTable alignRight(int... columns) {
        for (int c : columns) {
            right.add(c);
        }
        return this;
    }

    TextTable row(String... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException(String.format(
                    "row must have %d cells but had %d", header.length, cells.length));
        }
        rows.add(cells.clone());
        return this;
    }

    String render() {
        int[] width = new int[header.length];
        for (int c = 0; c < header.length; c++) {
            width[c] = header[c].length();
            for (String[] row : rows) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        line(sb, header, width);
        StringBuilder rule = new StringBuilder();
        for (int c = 0; c < width.length; c++) {
            rule.append(c == 0 ? "" : "  ").append("-".repeat(width[c]));
        }
        sb.append(rule).append(System.lineSeparator());
        for (String[] row : rows) {
            line(sb, row, width);
        }
        return sb.toString();
    }

    private void line(StringBuilder sb, String[] cells, int[] width) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) {
                line.append("  ");
            }
            String pad = " ".repeat(width[c] - cells[c].length());
            line.append(right.contains(c) ? pad + cells[c] : cells[c] + pad);
        }
        sb.append(line.toString().stripTrailing()).append(System.lineSeparator());
    }
}
