package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class HtmlReportTest {

    @Test
    void isWellFormedAndEscapesNames() throws Exception {
        List<SaleResult> results = List.of(
                new SaleResult("none", "No lock <at all> & \"quotes\"", 10, 20, 18, 2, 0, 0, 50_000_000, -1, -1, null),
                new SaleResult("lock:redis", "DistributedLock", 10, 20, 10, 0, 3, 0, 80_000_000, 2_000_000,
                        9_000_000, null));
        String html = HtmlReport.render("Flash sale: 10 items & 20 buyers", results);
        Document doc = DemoIT.parseXml(html);
        assertThat(doc.getElementsByTagName("svg").getLength()).isEqualTo(2);
        assertThat(doc.getElementsByTagName("tr").getLength()).isEqualTo(3);
        assertThat(html).contains("No lock &lt;at all&gt; &amp; &quot;quotes&quot;").contains("oversold 8");
    }
}
