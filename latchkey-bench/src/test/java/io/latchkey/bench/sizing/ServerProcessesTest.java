package io.latchkey.bench.sizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerProcessesTest {

    @Test
    void readsTheCpuTimeAndMemoryOfAChildProcessFromProc() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux /proc");
        Map<Long, Long> before = ServerProcesses.cpuNanosByNode();
        // A child busy for some tenths of a second of CPU (no forks), then idle until destroyed.
        Process busy = new ProcessBuilder("sh", "-c",
                "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 30").start();
        try {
            long[] used = {0, 0};
            for (int i = 0; i < 400 && used[0] < 20_000_000L; i++) {
                Thread.sleep(50);
                used = ServerProcesses.delta(before, ServerProcesses.cpuNanosByNode());
            }
            assertThat(used[0]).as("CPU time of the child and its descendants").isGreaterThanOrEqualTo(20_000_000L);
            assertThat(used[1]).as("the busiest node").isPositive().isLessThanOrEqualTo(used[0]);
            assertThat(ServerProcesses.cpuNanosByNode()).containsKey(busy.pid());
            assertThat(ServerProcesses.rssBytes()).as("memory of the child").isPositive();
        } finally {
            busy.destroyForcibly().waitFor();
        }
    }
}
