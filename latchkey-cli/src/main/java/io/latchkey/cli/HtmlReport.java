package io.latchkey.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * The demo's {@code --report} page: one self-contained file (inline CSS and SVG, no scripts, no external
 * resources) that is also well-formed XML, so it can be checked by a parser and opened anywhere.
 */
final class HtmlReport {

    private static final int CHART_WIDTH = 760;
    private static final int LABEL_WIDTH = 180;
    private static final int BAR_HEIGHT = 18;
    private static final int GAP = 10;

    private HtmlReport() {
    }

    static void write(Path file, String setup, List<SaleResult> results) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, render(setup, results), StandardCharsets.UTF_8);
    }

    static String render(String setup, List<SaleResult> results) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
                .append("<title>Latchkey flash-sale demo</title>\n<style>\n")
                .append("body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:62em}\n")
                .append("table{border-collapse:collapse;margin:1em 0}\n")
                .append("th,td{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:right}\n")
                .append("th:first-child,td:first-child{text-align:left}\n")
                .append("tr.bad td{color:#b00020;font-weight:600}\n")
                .append("dt{font-weight:600;margin-top:.5em}\nsvg text{font-size:12px;font-family:system-ui,sans-serif}\n")
                .append("</style>\n</head>\n<body>\n<h1>Latchkey flash-sale demo</h1>\n");
        for (String line : setup.split("\\R")) {
            h.append("<p>").append(esc(line)).append("</p>\n");
        }
        h.append("<p>Generated ").append(esc(OffsetDateTime.now(ZoneOffset.UTC)
                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")))).append(".</p>\n");
        table(h, results);
        h.append("<h2>Throughput (buyers served per second)</h2>\n");
        throughputChart(h, results);
        h.append("<h2>Acquire latency (p50 and p99, log scale from 1 &#181;s)</h2>\n");
        latencyChart(h, results);
        h.append("<h2>Strategies</h2>\n<dl>\n");
        for (SaleResult r : results) {
            h.append("<dt>").append(esc(r.strategy())).append("</dt><dd>").append(esc(r.description()))
                    .append("</dd>\n");
        }
        h.append("</dl>\n<p>");
        for (String line : DemoTable.legend(results)) {
            h.append(esc(line)).append("<br/>\n");
        }
        h.append("</p>\n</body>\n</html>\n");
        return h.toString();
    }

    private static void table(StringBuilder h, List<SaleResult> results) {
        h.append("<table>\n<thead><tr>");
        for (String col : DemoTable.HEADER) {
            h.append("<th>").append(esc(col)).append("</th>");
        }
        h.append("</tr></thead>\n<tbody>\n");
        for (SaleResult r : results) {
            h.append(r.oversold() > 0 ? "<tr class=\"bad\">" : "<tr>");
            for (String cell : new String[] {r.strategy(), String.valueOf(r.orders()), String.valueOf(r.finalStock()),
                String.valueOf(r.oversold()), String.valueOf(r.failedAttempts()), DemoTable.throughput(r),
                Durations.latency(r.p50Nanos()), Durations.latency(r.p99Nanos())}) {
                h.append("<td>").append(esc(cell)).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</tbody>\n</table>\n");
    }

    private static void throughputChart(StringBuilder h, List<SaleResult> results) {
        double max = 1;
        for (SaleResult r : results) {
            max = Math.max(max, r.throughput());
        }
        int height = results.size() * (BAR_HEIGHT + GAP) + GAP;
        svgOpen(h, height, "Throughput per strategy");
        int y = GAP;
        for (SaleResult r : results) {
            int w = bar(r.throughput(), max);
            String color = r.oversold() > 0 ? "#d64545" : "#3b7dd8";
            label(h, y, r.strategy());
            h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                    + "<title>%s</title></rect>\n", LABEL_WIDTH, y, w, BAR_HEIGHT, color,
                    esc(r.strategy() + ": " + DemoTable.throughput(r))));
            value(h, LABEL_WIDTH + w + 6, y, DemoTable.throughput(r) + (r.oversold() > 0 ? "  (oversold "
                    + r.oversold() + ")" : ""));
            y += BAR_HEIGHT + GAP;
        }
        h.append("</svg>\n");
    }

    private static void latencyChart(StringBuilder h, List<SaleResult> results) {
        // Log scale: waits range from microseconds (row locks) to seconds (polling backends) in one chart.
        double max = 1;
        for (SaleResult r : results) {
            max = Math.max(max, logMicros(r.p99Nanos()));
        }
        int half = BAR_HEIGHT / 2;
        int height = results.size() * (BAR_HEIGHT + GAP) + GAP + 20;
        svgOpen(h, height, "Acquire latency per strategy");
        int y = GAP;
        for (SaleResult r : results) {
            label(h, y, r.strategy());
            if (r.p50Nanos() < 0) {
                value(h, LABEL_WIDTH + 6, y, "no lock acquired");
            } else {
                int w50 = bar(logMicros(r.p50Nanos()), max);
                int w99 = bar(logMicros(r.p99Nanos()), max);
                h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        + "fill=\"#7fb069\"><title>p50 %s</title></rect>\n", LABEL_WIDTH, y, w50, half,
                        esc(Durations.latency(r.p50Nanos()))));
                h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        + "fill=\"#e6a23c\"><title>p99 %s</title></rect>\n", LABEL_WIDTH, y + half, w99, half,
                        esc(Durations.latency(r.p99Nanos()))));
                value(h, LABEL_WIDTH + Math.max(w50, w99) + 6, y, "p50 " + Durations.latency(r.p50Nanos())
                        + " / p99 " + Durations.latency(r.p99Nanos()));
            }
            y += BAR_HEIGHT + GAP;
        }
        h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"#7fb069\"/>"
                + "<text x=\"%d\" y=\"%d\">p50</text>\n", LABEL_WIDTH, y, LABEL_WIDTH + 16, y + 9));
        h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"#e6a23c\"/>"
                + "<text x=\"%d\" y=\"%d\">p99</text>\n", LABEL_WIDTH + 60, y, LABEL_WIDTH + 76, y + 9));
        h.append("</svg>\n");
    }

    /** log10 of a latency in microseconds, from 0 (1 µs or less). */
    private static double logMicros(long nanos) {
        return Math.log10(Math.max(1.0, nanos / 1000.0));
    }

    private static void svgOpen(StringBuilder h, int height, String title) {
        h.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n", CHART_WIDTH, height, CHART_WIDTH, height,
                esc(title)));
    }

    private static int bar(double value, double max) {
        int room = CHART_WIDTH - LABEL_WIDTH - 170;
        return Math.max(1, (int) Math.round(room * value / max));
    }

    private static void label(StringBuilder h, int y, String text) {
        h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                LABEL_WIDTH - 8, y + BAR_HEIGHT - 5, esc(text)));
    }

    private static void value(StringBuilder h, int x, int y, String text) {
        h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>\n", x, y + BAR_HEIGHT - 5, esc(text)));
    }

    static String esc(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '&': sb.append("&amp;"); break;
                case '<': sb.append("&lt;"); break;
                case '>': sb.append("&gt;"); break;
                case '"': sb.append("&quot;"); break;
                case '\'': sb.append("&#39;"); break;
                default: sb.append(c);
            }
        }
        return sb.toString();
    }
}
