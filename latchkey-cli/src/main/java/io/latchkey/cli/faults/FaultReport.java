package io.latchkey.cli.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The output of a fault run: the text table (one row per backend × fault), the same as CSV, and a self-contained
 * HTML page (inline CSS and SVG, no scripts, well-formed XML) with a timeline per worker: holds as bars, faults
 * shaded, accepted writes as ticks, refused writes in red.
 */
public final class FaultReport {

    static final List<String> HEADER = List.of("backend", "fault", "target", "grants", "accepted", "refused",
            "unsafe", "lost upd", "overlaps", "token order", "told", "next grant", "recovery", "stuck", "result");

    private FaultReport() {
    }

    static List<String> cells(FaultRow r) {
        return List.of(r.backend(), r.fault(), r.target(), Integer.toString(r.grants()),
                Integer.toString(r.accepted()), Integer.toString(r.refused()), Integer.toString(r.unsafe()),
                r.fault().equals("whole run") ? Long.toString(r.lostUpdates()) : "",
                Integer.toString(r.overlaps()), r.tokenOrder() == 0 ? "ok" : Integer.toString(r.tokenOrder()),
                r.lostHolds() == 0 ? "-" : r.told() + "/" + r.lostHolds(), millis(r.nextGrantMillis()),
                millis(r.recoveryMillis()), Integer.toString(r.stuck()), r.passed() ? "PASS" : "FAIL");
    }

    static String millis(long ms) {
        if (ms < 0) {
            return "-";
        }
        if (ms == Long.MAX_VALUE) {
            return "never";
        }
        return String.format(Locale.ROOT, "%.2fs", ms / 1000.0);
    }

    static String text(List<FaultRow> rows, Duration lease) {
        List<List<String>> lines = new ArrayList<>();
        lines.add(HEADER);
        for (FaultRow r : rows) {
            lines.add(cells(r));
        }
        int[] width = new int[HEADER.size()];
        for (List<String> l : lines) {
            for (int i = 0; i < l.size(); i++) {
                width[i] = Math.max(width[i], l.get(i).length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (int n = 0; n < lines.size(); n++) {
            List<String> l = lines.get(n);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < l.size(); i++) {
                String cell = l.get(i);
                String pad = " ".repeat(width[i] - cell.length());
                line.append(i == 0 ? "" : "  ").append(i < 3 || i == l.size() - 1 ? cell + pad : pad + cell);
            }
            b.append(line.toString().stripTrailing()).append(System.lineSeparator());
            if (n == 0) {
                StringBuilder rule = new StringBuilder();
                for (int i = 0; i < width.length; i++) {
                    rule.append(i == 0 ? "" : "  ").append("-".repeat(width[i]));
                }
                b.append(rule).append(System.lineSeparator());
            }
        }
        b.append(String.format(Locale.ROOT, "rules: unsafe 0, lost updates 0, accepted tokens in order, every lost "
                + "holder told, next grant after a kill, pause or partition of a holder <= lease + 1s (%s), writes accepted again after a server "
                + "fault, no stretch without an accepted write longer than %s outside faults, no worker stuck; "
                + "overlaps are reported, not judged%n", FaultSchedule.seconds(lease.plusSeconds(1)),
                FaultSchedule.seconds(HistoryChecker.progressBound(lease,
                        rows.isEmpty() ? "" : rows.get(0).backend()))));
        return b.toString();
    }

    /**
     * The "Results" table of docs/faults.md: one line per backend × fault with what the rules measured, in
     * Markdown. The {@code whole run} rows give the lost updates.
     */
    public static String markdown(List<FaultRow> rows) {
        StringBuilder b = new StringBuilder("| backend | fault | grants | accepted | refused | unsafe | lost updates "
                + "| overlaps | token order | told | next grant | recovery | result |\n"
                + "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
        for (FaultRow r : rows) {
            List<String> c = cells(r);
            b.append("| ").append(String.join(" | ", c.get(0), c.get(1), c.get(3), c.get(4), c.get(5), c.get(6),
                    c.get(7).isEmpty() ? "" : c.get(7), c.get(8), c.get(9), c.get(10), c.get(11), c.get(12),
                    r.passed() ? "PASS" : "FAIL: " + String.join("; ", r.violations()))).append(" |\n");
        }
        return b.toString();
    }

    static String csv(List<FaultRow> rows) {
        StringBuilder b = new StringBuilder(String.join(",", HEADER)).append(",violations\n");
        for (FaultRow r : rows) {
            List<String> c = new ArrayList<>(cells(r));
            c.add(String.join("; ", r.violations()));
            for (int i = 0; i < c.size(); i++) {
                String v = c.get(i);
                b.append(i == 0 ? "" : ",").append(v.contains(",") || v.contains("\"")
                        ? "\"" + v.replace("\"", "\"\"") + "\"" : v);
            }
            b.append('\n');
        }
        return b.toString();
    }

    static void write(Path file, List<FaultRow> rows, List<HistoryEvent> events, List<FaultWindow> windows,
                      Duration lease) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        String content = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".csv") ? csv(rows)
                : html(rows, events, windows, lease);
        Files.writeString(file, content, StandardCharsets.UTF_8);
        StringBuilder raw = new StringBuilder();
        for (HistoryEvent e : events) {
            raw.append(e.format()).append('\n');
        }
        Files.writeString(historyFile(file), raw, StandardCharsets.UTF_8);
    }

    /** Beside the report: the raw history, one {@link HistoryEvent} line each, for a second look. */
    static Path historyFile(Path report) {
        String n = report.getFileName().toString();
        return report.resolveSibling(n.substring(0, n.lastIndexOf('.')) + ".history.txt");
    }

    static String html(List<FaultRow> rows, List<HistoryEvent> events, List<FaultWindow> windows, Duration lease) {
        StringBuilder h = new StringBuilder();
        String backend = rows.isEmpty() ? "" : rows.get(0).backend();
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>Latchkey fault run: ")
                .append(esc(backend)).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n")
                .append("table{border-collapse:collapse;margin:1em 0}\n")
                .append("th,td{padding:.3em .6em;border-bottom:1px solid #ddd;text-align:right}\n")
                .append("td:nth-child(-n+3),th:nth-child(-n+3){text-align:left}\n")
                .append("tr.bad td{color:#b00020;font-weight:600}\n")
                .append("svg text{font-size:11px;font-family:system-ui,sans-serif}\n")
                .append("</style>\n</head>\n<body>\n<h1>Latchkey fault run: ").append(esc(backend))
                .append("</h1>\n<p>Lease ").append(esc(FaultSchedule.seconds(lease)))
                .append(". Bars are holds as each worker saw them (grant until released or told it lost the lock); "
                        + "ticks are writes the fenced register accepted (green) or refused (red); shaded bands are "
                        + "faults.</p>\n<table>\n<thead><tr>");
        for (String col : HEADER) {
            h.append("<th>").append(esc(col)).append("</th>");
        }
        h.append("</tr></thead>\n<tbody>\n");
        for (FaultRow r : rows) {
            h.append(r.passed() ? "<tr>" : "<tr class=\"bad\">");
            for (String c : cells(r)) {
                h.append("<td>").append(esc(c)).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</tbody>\n</table>\n");
        for (FaultRow r : rows) {
            for (String v : r.violations()) {
                h.append("<p class=\"bad\">VIOLATION ").append(esc(r.fault())).append(": ").append(esc(v))
                        .append("</p>\n");
            }
        }
        timeline(h, events, windows);
        h.append("</body>\n</html>\n");
        return h.toString();
    }

    private static void timeline(StringBuilder h, List<HistoryEvent> events, List<FaultWindow> windows) {
        if (events.isEmpty() || windows.isEmpty()) {
            return;
        }
        long t0 = windows.get(0).start();
        long t1 = windows.get(windows.size() - 1).windowEnd();
        Map<String, Integer> lanes = new LinkedHashMap<>();
        for (HistoryEvent e : events) {
            if (!e.actor().equals(HistoryEvent.VERIFIER)) {
                lanes.putIfAbsent(e.actor(), lanes.size());
            }
        }
        int label = 60;
        int width = 1000;
        int lane = 22;
        int height = 30 + lane * lanes.size();
        double scale = (double) width / Math.max(1, t1 - t0);
        h.append("<h2>Timeline</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(label + width + 10)
                .append("\" height=\"").append(height).append("\">\n");
        for (FaultWindow w : windows) {
            if (w.kind() == FaultKind.NONE) {
                continue;
            }
            double x = label + Math.max(0, w.start() - t0) * scale;
            double wd = Math.max(3, (w.end() - w.start()) * scale);
            h.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\" "
                    + "fill=\"#fde7b0\"/><text x=\"%.1f\" y=\"12\">%s</text>%n", x, wd, height, x + 2,
                    esc(w.kind().label() + (w.target().isEmpty() ? "" : " " + w.target()))));
        }
        for (Map.Entry<String, Integer> l : lanes.entrySet()) {
            int y = 20 + lane * l.getValue();
            h.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"%d\">%s</text>%n", y + 13, esc(l.getKey())));
        }
        Map<String, HistoryEvent> open = new LinkedHashMap<>();
        for (HistoryEvent e : events) {
            Integer ln = lanes.get(e.actor());
            if (ln == null || e.nanos() - t0 < 0) {
                continue;
            }
            int y = 20 + lane * ln;
            double x = label + (e.nanos() - t0) * scale;
            switch (e.type()) {
                case ACQUIRED -> open.put(e.actor(), e);
                case RELEASED, RELEASE_LOST, RELEASE_ERROR, LOST, EXITED -> {
                    HistoryEvent a = open.remove(e.actor());
                    if (a != null) {
                        double ax = label + (a.nanos() - t0) * scale;
                        String fill = e.type() == HistoryEvent.Type.RELEASED ? "#4a78c2" : "#9b59b6";
                        h.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" "
                                + "fill=\"%s\"><title>%s token %d %s</title></rect>%n", ax, y, Math.max(1, x - ax),
                                fill, esc(e.actor()), a.token(), esc(e.type().name())));
                    }
                }
                case WRITE_OK -> h.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"2\" "
                        + "height=\"18\" fill=\"#2e8b57\"><title>write %d token %d</title></rect>%n", x, y - 2,
                        e.value(), e.token()));
                case WRITE_REFUSED, READ_REFUSED -> h.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" "
                        + "width=\"3\" height=\"18\" fill=\"#d0021b\"><title>refused token %d</title></rect>%n", x,
                        y - 2, e.token()));
                default -> {
                }
            }
        }
        h.append("</svg>\n<p>Blue: released normally; purple: ended by the lost signal, a LockLostException, a "
                + "failed release or a kill.</p>\n");
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
