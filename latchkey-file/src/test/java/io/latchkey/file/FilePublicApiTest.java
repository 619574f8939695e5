package io.latchkey.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A module-path user of {@code io.latchkey.file} reads {@code io.latchkey} but cannot name the engine's types in
 * {@code io.latchkey.core} (exported only to the backend modules): no public method of the client, its own or
 * inherited from the engine's base class, may take or return one.
 */
class FilePublicApiTest {

    @Test
    void publicMethodsNameNoEngineType() {
        List<String> leaks = new ArrayList<>();
        for (Method m : FileLockClient.class.getMethods()) {
            List<Class<?>> types = new ArrayList<>(List.of(m.getParameterTypes()));
            types.add(m.getReturnType());
            for (Class<?> t : types) {
                if (t.getPackageName().startsWith("io.latchkey.core")) {
                    leaks.add(m.getName() + " names " + t.getName());
                }
            }
        }
        assertThat(leaks).isEmpty();
    }
}
