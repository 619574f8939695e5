package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the shaded jar as a user would ({@code java -jar latchkey-cli.jar …}) in its own process and captures the
 * exit code, stdout and stderr.
 */
final class CliProcess {

    record Result(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    private CliProcess() {
    }

    static Path jar() {
        String configured = System.getProperty("latchkey.cli.jar");
        Path jar = configured != null ? Paths.get(configured) : Paths.get("target", "latchkey-cli-0.1.0-SNAPSHOT.jar");
        assertThat(jar).as("the shaded jar (built by 'mvn package')").exists();
        return jar;
    }

    /**
     * A {@code java -Xmx512m -jar latchkey …} command line whose JVM takes SIGINT as Ctrl-C, however this test was
     * started: a build started in the background of a shell without job control runs with SIGINT ignored, the JVM
     * inherits that and then installs no handler, so {@code kill -INT} would do nothing. {@code env
     * --default-signal=INT} (GNU coreutils) restores the default before the JVM starts.
     */
    static ProcessBuilder javaJarTakingSigint(String... args) {
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT",
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-jar",
                jar().toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    static Result run(String... args) {
        return runWithInput(null, Duration.ofSeconds(90), args);
    }

    static Result runWithInput(String stdin, Duration timeout, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-jar");
        command.add(jar().toString());
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).start();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread outPump = pump(process.getInputStream(), out, "latchkey-it-stdout");
            Thread errPump = pump(process.getErrorStream(), err, "latchkey-it-stderr");
            try (OutputStream in = process.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("latchkey " + String.join(" ", args) + " did not finish within " + timeout
                        + "\n--- stdout\n" + out + "--- stderr\n" + err);
            }
            outPump.join();
            errPump.join();
            return new Result(process.exitValue(), out.toString(StandardCharsets.UTF_8),
                    err.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static Thread pump(InputStream from, ByteArrayOutputStream to, String name) {
        Thread t = new Thread(() -> {
            try {
                from.transferTo(to);
            } catch (IOException e) {
                // the process ended
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    static Path tempDir() throws IOException {
        Path dir = Paths.get("target", "it-work");
        Files.createDirectories(dir);
        return Files.createTempDirectory(dir, "run-");
    }
}
