package io.latchkey.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.quarkus.Locked;
import io.latchkey.quarkus.LockedScheduled;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A template naming no parameter, a duration without a unit and a non-void scheduled method fail the build. */
class BadTemplateTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(BadService.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            // Maven's -D properties reach the test JVM as system properties (-Dlatchkey.test.jdk=...)
            .overrideConfigKey("smallrye.config.mapping.validate-unknown", "false")
            .assertException(failure -> {
                String all = messages(failure);
                assertThat(all).contains("@Locked on io.latchkey.quarkus.deployment.BadTemplateTest$BadService"
                        + ".ship(java.lang.String)").contains("'{orderID}' names no parameter");
                assertThat(all).contains("waitTime must be a duration with a unit").contains("'5'");
                assertThat(all).contains("report()").contains("must return void");
            });

    @Test
    void buildFails() {
        Assertions.fail("the build should have failed");
    }

    private static String messages(Throwable failure) {
        List<String> out = new ArrayList<>();
        collect(failure, out);
        return String.join("\n", out);
    }

    private static void collect(Throwable t, List<String> out) {
        if (t == null) {
            return;
        }
        out.add(String.valueOf(t.getMessage()));
        for (Throwable s : t.getSuppressed()) {
            collect(s, out);
        }
        collect(t.getCause(), out);
    }

    @ApplicationScoped
    public static class BadService {
        @Locked(name = "order:{orderID}")
        public void ship(String orderId) {
        }

        @Locked(name = "order:{orderId}", waitTime = "5")
        public void pack(String orderId) {
        }

        @LockedScheduled(name = "report")
        public String report() {
            return "";
        }
    }
}
