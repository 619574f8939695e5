package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.tck.LockContractTck;
import java.lang.module.ModuleDescriptor;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What the module descriptors of {@code io.latchkey} and {@code io.latchkey.core} promise, checked on the module
 * path: the surefire execution {@code module-path} of this module runs this class together with the {@code mem://}
 * lock and semaphore TCK there (every other run of the tests uses the class path, where this class is skipped).
 */
class ModulePathTest {

    @Test
    void memBackendIsFoundThroughTheProvidesClause() throws InterruptedException {
        assumeOnModulePath();
        // In a named module ServiceLoader ignores META-INF/services: only "provides ... with" finds the mem provider.
        try (LockClient client = LockClient.connect("mem://module-path-test")) {
            assertThat(client.getClass().getModule().getName()).isEqualTo("io.latchkey.core");
            DistributedLock lock = client.lock("module-path");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
    }

    @Test
    void apiExportsOnlyItsTwoPackagesUnqualified() {
        assumeOnModulePath();
        Module api = LockClient.class.getModule();
        assertThat(api.getName()).isEqualTo("io.latchkey");
        assertThat(exports(api.getDescriptor())).containsExactlyInAnyOrder("io.latchkey", "io.latchkey.spi");
        assertThat(api.getDescriptor().uses()).containsExactly("io.latchkey.spi.LockClientProvider");
    }

    @Test
    void coreExportsTheEngineOnlyToTheBackendsAndHidesItsInternals() {
        assumeOnModulePath();
        Module core = ModulePathTest.class.getModule();
        ModuleDescriptor descriptor = core.getDescriptor();
        assertThat(descriptor.exports()).singleElement().satisfies(export -> {
            assertThat(export.source()).isEqualTo("io.latchkey.core");
            assertThat(export.targets()).containsExactlyInAnyOrder("io.latchkey.redis", "io.latchkey.jdbc",
                    "io.latchkey.etcd", "io.latchkey.file", "io.latchkey.zookeeper");
        });
        Module outsider = LockContractTck.class.getModule(); // the class path's unnamed module
        assertThat(outsider.isNamed()).isFalse();
        for (String pkg : Set.of("io.latchkey.core.internal", "io.latchkey.core.internal.election")) {
            assertThat(core.isExported(pkg, outsider)).as(pkg).isFalse();
            assertThat(core.isOpen(pkg, outsider)).as(pkg).isFalse();
        }
    }

    private static Set<String> exports(ModuleDescriptor descriptor) {
        return descriptor.exports().stream()
                .filter(export -> !export.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
    }

    private static void assumeOnModulePath() {
        assumeTrue(ModulePathTest.class.getModule().isNamed(),
                "on the class path; the module-path execution of latchkey-core runs this test");
    }
}
