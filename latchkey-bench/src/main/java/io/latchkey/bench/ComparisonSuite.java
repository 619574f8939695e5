package io.latchkey.bench;

/**
 * One backend's side-by-side comparison (Redis vs Redisson, ZooKeeper vs Curator, SQL vs Spring's lock registry),
 * selected with {@code --suites NAME}. {@link BenchMain} finds suites through {@link java.util.ServiceLoader} and,
 * so that a suite needs no shared registration file, by the conventional class names
 * {@code io.latchkey.bench.<name>.<Name>Comparison} listed in {@link Suites}, which need a public no-argument
 * constructor. A program at {@code io.latchkey.bench.<name>.<Name>SideBySide} with a {@code main} method is run
 * too, with its own defaults, and prints its own tables.
 */
public interface ComparisonSuite {

    /** The name {@code --suites} selects this suite by, such as {@code "redis"}. */
    String name();

    /**
     * Starts (or connects to) the server, runs the comparison with the timing flags of {@code options} and returns
     * its Markdown section: a level-3 heading, the tables and the notes on how each side was set up.
     */
    SideBySide.Report run(BenchOptions options) throws Exception;
}
