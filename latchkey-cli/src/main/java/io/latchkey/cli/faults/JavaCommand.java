package io.latchkey.cli.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that starts another JVM on this JVM's own {@code java} binary and class path, for the worker
 * processes and the embedded ZooKeeper server of a fault run. Small heaps and quick start-up flags: a loaded 2-core
 * machine starts several of these.
 */
final class JavaCommand {

    private JavaCommand() {
    }

    static List<String> of(Class<?> main, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.add("-Xmx96m");
        command.add("-Xss512k");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        return command;
    }

    static String javaBinary() {
        Path home = Path.of(System.getProperty("java.home"), "bin", "java");
        if (Files.isExecutable(home)) {
            return home.toString();
        }
        return ProcessHandle.current().info().command().orElse("java");
    }
}
