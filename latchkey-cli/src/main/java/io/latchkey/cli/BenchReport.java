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
 * {@code latchkey bench --report}: the measured rows as CSV (one line per row, latencies in microseconds, for
 * spreadsheets and plots) or as a self-contained HTML page (table and a throughput chart; well-formed XML, no
 * scripts, no external resources), chosen by the file's extension.
 */
final class BenchReport {

    /** One measured row: thread count, names mode, throughput and latency percentiles in nanoseconds. */
    record Row(int threads, String names, double cyclesPerSecond, long p50, long p90, long p99, long max) {
    }

    private static final int CHART_WIDTH = 760;
    private static final int LABEL_WIDTH = 160;
    private static final int BAR_HEIGHT = 18;
    private static final int GAP = 10;

    private BenchReport() {
    }

    static void write(Path file, String setup, List<Row> rows, boolean interrupted) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        String text = name.endsWith(".csv") ? csv(rows) : html(setup, rows, interrupted);
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    static String csv(List<Row> rows) {
        StringBuilder b = new StringBuilder("threads,names,cycles_per_second,p50_us,p90_us,p99_us,max_us\n");
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%d,%s,%.1f,%s,%s,%s,%s%n", r.threads(), r.names(),
                    r.cyclesPerSecond(), micros(r.p50()), micros(r.p90()), micros(r.p99()), micros(r.max())));
        }
        return b.toString();
    }

    private static String micros(long nanos) {
        return nanos < 0 ? "" : String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
    }

    static String html(String setup, List<Row> rows, boolean interrupted) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
                .append("<title>Latchkey bench</title>\n<style>\n")
                .append("body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:62em}\n")
                .append("table{border-collapse:collapse;margin:1em 0}\n")
                .append("th,td{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:right}\n")
                .append("th:nth-child(2),td:nth-child(2){text-align:left}\n")
                .append("svg text{font-size:12px;font-family:system-ui,sans-serif}\n")
                .append("</style>\n</head>\n<body>\n<h1>Latchkey bench</h1>\n");
        h.append("<p>").append(HtmlReport.esc(setup)).append("</p>\n");
        h.append("<p>Generated ").append(HtmlReport.esc(OffsetDateTime.now(ZoneOffset.UTC)
                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")))).append(".</p>\n");
        if (interrupted) {
            h.append("<p><strong>Interrupted: only the rows measured before the interruption are shown.</strong></p>\n");
        }
        h.append("<table>\n<thead><tr>");
        for (String col : BenchCommand.HEADER) {
            h.append("<th>").append(HtmlReport.esc(col)).append("</th>");
        }
        h.append("</tr></thead>\n<tbody>\n");
        for (Row r : rows) {
            h.append("<tr>");
            for (String cell : BenchCommand.cells(r)) {
                h.append("<td>").append(HtmlReport.esc(cell)).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</tbody>\n</table>\n<h2>Lock+unlock cycles per second</h2>\n");
        double max = 1;
        for (Row r : rows) {
            max = Math.max(max, r.cyclesPerSecond());
        }
        int height = rows.size() * (BAR_HEIGHT + GAP) + GAP;
        h.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"cycles per second\">\n", CHART_WIDTH, height,
                CHART_WIDTH, height));
        int y = GAP;
        for (Row r : rows) {
            String label = r.threads() + (r.threads() == 1 ? " thread, " : " threads, ") + r.names();
            String value = String.format(Locale.ROOT, "%,.0f/s", r.cyclesPerSecond());
            int w = Math.max(1, (int) Math.round((CHART_WIDTH - LABEL_WIDTH - 120) * r.cyclesPerSecond() / max));
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                    LABEL_WIDTH - 8, y + BAR_HEIGHT - 5, HtmlReport.esc(label)));
            h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                    + "<title>%s</title></rect>\n", LABEL_WIDTH, y, w, BAR_HEIGHT,
                    r.names().equals("shared") ? "#e6a23c" : "#3b7dd8", HtmlReport.esc(label + ": " + value)));
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>\n", LABEL_WIDTH + w + 6,
                    y + BAR_HEIGHT - 5, HtmlReport.esc(value)));
            y += BAR_HEIGHT + GAP;
        }
        h.append("</svg>\n</body>\n</html>\n");
        return h.toString();
    }
}
