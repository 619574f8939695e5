package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Quick start compiles as written: imports shown, nothing undefined. */
class ReadmeQuickStartTest {

    @Test
    void theQuickStartSnippetCompiles(@TempDir Path out) throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int section = readme.indexOf("## Quick start");
        assertThat(section).as("README.md has a Quick start section").isNotNegative();
        int start = readme.indexOf("```java\n", section);
        assertThat(start).as("Quick start has a java block").isNotNegative();
        start += "```java\n".length();
        String source = readme.substring(start, readme.indexOf("```", start));
        assertThat(source).contains("public class QuickStart");

        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///QuickStart.java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        StringWriter output = new StringWriter();
        boolean compiled = compiler.getTask(output, null, diagnostics,
                List.of("-d", out.toString(), "-classpath", System.getProperty("java.class.path"),
                        "-Xlint:all", "-Werror"),
                null, List.of(file)).call();
        assertThat(compiled).as("README Quick start: %s %s", diagnostics.getDiagnostics(), output).isTrue();
    }
}
