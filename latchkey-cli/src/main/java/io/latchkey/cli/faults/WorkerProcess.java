package io.latchkey.cli.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One worker JVM ({@link FaultWorkerMain}) of a fault run: started with this JVM's {@code java} and class path, its
 * history lines read by one named daemon thread into the {@link History}, its standard error kept in a file of the
 * run's directory. The verifier pauses ({@code SIGSTOP}), resumes ({@code SIGCONT}) and kills ({@code SIGKILL}) it
 * through this class, and stops it in order at the end by closing its standard input.
 */
final class WorkerProcess {

    private final String id;
    private final Process process;
    private final Thread reader;
    private final History history;

    private WorkerProcess(String id, Process process, History history) {
        this.id = id;
        this.process = process;
        this.history = history;
        this.reader = new Thread(this::readHistory, "latchkey-faults-reader-" + id);
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * @param secrets options passed in the environment rather than on the command line (URIs may carry passwords,
     *        and command lines are visible to every user of the host)
     */
    static WorkerProcess start(String id, List<String> args, Map<String, String> secrets, Path errorLog,
                               History history) {
        return start(id, args, secrets, errorLog, history, c -> c);
    }

    /**
     * @param wrap what runs the worker's command line (as it is, or in a network namespace: {@code ip netns exec},
     *        which execs the JVM, so that signals reach it)
     */
    static WorkerProcess start(String id, List<String> args, Map<String, String> secrets, Path errorLog,
                               History history, java.util.function.UnaryOperator<List<String>> wrap) {
        ProcessBuilder builder = new ProcessBuilder(wrap.apply(JavaCommand.of(FaultWorkerMain.class, args)))
                .redirectError(ProcessBuilder.Redirect.appendTo(errorLog.toFile()));
        secrets.forEach((k, v) -> builder.environment().put(FaultWorkerMain.ENV_PREFIX + k, v));
        try {
            return new WorkerProcess(id, builder.start(), history);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start worker " + id, e);
        }
    }

    private void readHistory() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                HistoryEvent e = HistoryEvent.parse(line);
                if (e != null) {
                    history.add(e);
                }
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    String id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGSTOP: the whole JVM freezes, as in a long GC pause or a descheduled VM. */
    void pause() {
        signal("-STOP");
    }

    /** SIGCONT. */
    void resume() {
        signal("-CONT");
    }

    /** SIGKILL, as a crash; records the exit in the history once the output is drained. */
    void kill() {
        process.destroyForcibly();
        awaitExit(10);
        history.add(HistoryEvent.now(id, HistoryEvent.Type.EXITED, -1, -1, "killed"));
    }

    /** The orderly stop: closes standard input, waits for the current hold to end, then kills what remains. */
    void stop() {
        signal("-CONT");
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already closed
        }
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        awaitExit(10);
    }

    private void awaitExit(int seconds) {
        try {
            process.waitFor(seconds, TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(seconds));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void signal(String signal) {
        if (!process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).redirectErrorStream(true)
                    .start();
            kill.getInputStream().readAllBytes();
            kill.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("could not send " + signal + " to worker " + id, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
