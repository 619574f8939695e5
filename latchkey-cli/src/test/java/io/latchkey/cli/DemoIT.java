package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/** {@code latchkey demo} with its zero-setup default, run as a separate process. */
class DemoIT {

    @Test
    void defaultDemoOversellsWithoutALockAndNeverWithOne() throws Exception {
        Path report = CliProcess.tempDir().resolve("report.html");
        CliProcess.Result result = CliProcess.run("demo", "--stock", "30", "--buyers", "60", "--report",
                report.toString());

        assertThat(result.exitCode()).as(result.toString()).isZero();
        Map<String, DemoTableParser.Row> rows = DemoTableParser.parse(result.stdout());
        assertThat(rows).as(result.toString()).containsOnlyKeys("none", "db-pessimistic", "db-optimistic",
                "lock:zookeeper", "lock:h2", "segmented:zookeeper", "segmented:h2", "store:zookeeper", "store:h2");
        assertThat(result.stdout()).contains("embedded ZooKeeper server at 127.0.0.1:").doesNotContain("note:");
        assertThat(rows.get("none").oversold()).as(result.toString()).isPositive();
        rows.values().stream().filter(r -> !r.strategy().equals("none")).forEach(r -> {
            assertThat(r.oversold()).as(r.strategy() + " oversold\n" + result).isZero();
            assertThat(r.orders()).as(r.strategy() + " orders\n" + result).isEqualTo(30);
            assertThat(r.finalStock()).as(r.strategy() + " final stock\n" + result).isZero();
        });
        assertThat(result.stderr()).doesNotContain("Exception");

        assertThat(report).exists();
        String html = Files.readString(report);
        Document doc = parseXml(html);
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("html");
        assertThat(doc.getElementsByTagName("svg").getLength()).as("charts").isGreaterThanOrEqualTo(2);
        assertThat(doc.getElementsByTagName("rect").getLength()).isGreaterThanOrEqualTo(rows.size());
        assertThat(doc.getElementsByTagName("tr").getLength()).as("header + one row per strategy")
                .isEqualTo(rows.size() + 1);
        assertThat(html).as("self-contained").doesNotContain("src=").doesNotContain("<script")
                .doesNotContain("href=\"http").doesNotContain("@import");
    }

    @Test
    void strategiesCanBeChosenAndStrangeValuesAreRefused() {
        CliProcess.Result only = CliProcess.run("demo", "--stock", "10", "--buyers", "20", "--clients", "2",
                "--threads", "4", "--strategies", "none,db-optimistic", "--no-progress");
        assertThat(only.exitCode()).as(only.toString()).isZero();
        assertThat(DemoTableParser.parse(only.stdout())).containsOnlyKeys("none", "db-optimistic");
        assertThat(only.stderr()).as("--no-progress").isEmpty();

        CliProcess.Result bad = CliProcess.run("demo", "--clients", "0");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).contains("--clients must be 1..64 but was 0");
    }

    /** Well-formed and without external entities: the report must parse as XML as well as HTML. */
    static Document parseXml(String html) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setNamespaceAware(false);
        DocumentBuilder b = f.newDocumentBuilder();
        return b.parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
    }
}
