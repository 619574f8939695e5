package io.latchkey.tck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Another JVM running a main class with this JVM's class path, for tests where a process dies: the test reads the
 * child's standard output line by line and can kill it with SIGKILL ({@link #kill()}), which gives the child no
 * chance to release anything.
 *
 * <p>Closing standard input asks a well-behaved child to finish ({@link #close()}); the child should exit when its
 * input ends, so that it never outlives a crashed test JVM.
 */
public final class ChildJvm implements AutoCloseable {

    private final String label;
    private final Process process;
    private final Path stderr;
    private final LinkedBlockingQueue<String> unread = new LinkedBlockingQueue<>();
    private final List<String> output = new CopyOnWriteArrayList<>();
    private volatile boolean stdoutEnded;

    private ChildJvm(String label, Process process, Path stderr) {
        this.label = label;
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(this::readStdout, "child-jvm-" + label + "-" + process.pid() + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java -cp <this class path> mainClass args…} with a small heap and quick start-up settings.
     *
     * @param label a short name for thread names and failure messages
     */
    public static ChildJvm start(String label, Class<?> mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile("latchkey-child-" + label + "-", ".stderr");
        Process process = new ProcessBuilder(command)
                .redirectError(stderr.toFile())
                .start();
        return new ChildJvm(label, process, stderr);
    }

    private void readStdout() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                output.add(line);
                unread.add(line);
            }
        } catch (IOException e) {
            output.add("<stdout failed: " + e + ">");
        } finally {
            stdoutEnded = true;
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the next output line starting with {@code prefix} (skipping others) and returns it.
     *
     * @throws AssertionError with the child's output and error stream if none came within {@code timeout}
     */
    public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            // An exited child (wrong class path, failed connect) fails the wait at once rather than at its end.
            boolean ended = stdoutEnded;
            long left = deadline - System.nanoTime();
            String line = left > 0 ? unread.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)),
                    TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                if (left > 0 && !ended) {
                    continue;
                }
                throw new AssertionError(String.format("child %s printed no line starting with '%s' within %s; %s",
                        label, prefix, ended ? "its lifetime" : timeout.toString(), describe()));
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    /** Every line the child printed so far (a snapshot). */
    public List<String> output() {
        return List.copyOf(output);
    }

    /** Whether the child printed a line starting with {@code prefix} so far. */
    public boolean printed(String prefix) {
        return output.stream().anyMatch(line -> line.startsWith(prefix));
    }

    /** SIGKILLs the child and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + label + " survived SIGKILL for 10 s");
        }
    }

    /**
     * Sends the child SIGTERM ({@link Process#destroy()}: a normal exit that runs its shutdown hooks) and waits until
     * it is gone.
     */
    public void terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + label + " survived SIGTERM for 20 s; " + describe());
        }
    }

    /** Closes the child's input (asking it to finish), then kills it if it is still alive after 10 s. */
    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // The child is gone already.
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException ignored) {
            // A temp file left behind is harmless.
        }
    }

    /** The child's state, output and error stream, for failure messages. */
    public String describe() {
        String errors;
        try {
            errors = Files.readString(stderr, StandardCharsets.UTF_8);
        } catch (IOException e) {
            errors = "<unreadable: " + e + ">";
        }
        if (errors.length() > 4000) {
            errors = "…" + errors.substring(errors.length() - 4000);
        }
        return String.format("pid %d %s; stdout: %s; stderr: %s", process.pid(),
                process.isAlive() ? "alive" : "exited with " + process.exitValue(), output, errors);
    }
}
