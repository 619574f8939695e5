package io.latchkey.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.cli.faults.HistoryEvent.Type;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class FaultReportTest {

    private static final long S = 1_000_000_000L;

    @Test
    void htmlIsSelfContainedWellFormedAndMarksRefusedWritesRed() throws Exception {
        List<HistoryEvent> events = List.of(
                new HistoryEvent(1 * S, "w1", Type.ACQUIRED, 1, -1, ""),
                new HistoryEvent(2 * S, "w1", Type.WRITE_OK, 1, 1, ""),
                new HistoryEvent(3 * S, "verifier", Type.FAULT_START, -1, -1, "PAUSE w1"),
                new HistoryEvent(4 * S, "w2", Type.ACQUIRED, 2, -1, ""),
                new HistoryEvent(5 * S, "w1", Type.WRITE_REFUSED, 1, 2, "<&>"),
                new HistoryEvent(6 * S, "w1", Type.RELEASE_LOST, 1, -1, ""));
        List<FaultWindow> windows = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 3 * S),
                new FaultWindow(FaultKind.PAUSE, "w1", 1, 3 * S, 5 * S, 10 * S));
        List<FaultRow> rows = new HistoryChecker("redis", Duration.ofSeconds(2), Duration.ofSeconds(30))
                .check(events, windows, 10 * S, 1);
        String html = FaultReport.html(rows, events, windows, Duration.ofSeconds(2));
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
        assertThat(doc.getElementsByTagName("svg").getLength()).isEqualTo(1);
        assertThat(html).doesNotContain("<script").doesNotContain("http://www.w3.org/1999/xlink")
                .contains("fill=\"#d0021b\"").contains("pause holder w1");
        assertThat(FaultReport.csv(rows).lines().count()).isEqualTo(rows.size() + 1);
        assertThat(FaultReport.markdown(rows)).contains("| redis | pause holder |").contains("PASS");
    }

    @Test
    void onAUsersOwnServerOnlyClientSideFaultsRunAndTheScheduleSaysSo() {
        FaultSchedule own = FaultSchedule.plan(ServerControl.external("redis://10.0.0.1:6379"), Duration.ofSeconds(2),
                Duration.ZERO, java.util.Set.of());
        assertThat(own.steps()).containsExactly(FaultKind.PAUSE, FaultKind.KILL, FaultKind.PARTITION);
        assertThat(String.join("\n", own.describe())).contains("did not start this server");
        FaultSchedule sentinel = FaultSchedule.plan(ServerControl.external("redis-sentinel://h:26379/m"),
                Duration.ofSeconds(2), Duration.ZERO, java.util.Set.of());
        assertThat(sentinel.steps()).containsExactly(FaultKind.PAUSE, FaultKind.KILL);
    }
}
