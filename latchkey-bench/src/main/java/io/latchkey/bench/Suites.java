package io.latchkey.bench;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Finds the comparison suites on the class path. The ZooKeeper and JDBC suites are written separately and may be
 * absent; a class at a conventional name that is not a {@link ComparisonSuite} but has a
 * {@code public static void main(String[])} is run as-is with no arguments (its own defaults).
 */
final class Suites {

    /** Conventional class names, tried in this order (the Redis suite first). */
    static final List<String> CONVENTIONAL = List.of(
            "io.latchkey.bench.redis.RedisComparison",
            "io.latchkey.bench.redis.RedisSyncComparison",
            "io.latchkey.bench.redis.scale.RedisScaleComparison",
            "io.latchkey.bench.zookeeper.ZooKeeperComparison",
            "io.latchkey.bench.zookeeper.ZooKeeperSideBySide",
            "io.latchkey.bench.jdbc.JdbcComparison",
            "io.latchkey.bench.jdbc.JdbcSideBySide",
            "io.latchkey.bench.sizing.SizingSuite");

    private Suites() {
    }

    /** Every suite found, by name. */
    static Map<String, ComparisonSuite> discover() {
        Map<String, ComparisonSuite> found = new LinkedHashMap<>();
        for (String className : CONVENTIONAL) {
            ComparisonSuite suite = load(className);
            if (suite != null) {
                found.putIfAbsent(suite.name(), suite);
            }
        }
        for (ComparisonSuite suite : ServiceLoader.load(ComparisonSuite.class)) {
            found.putIfAbsent(suite.name(), suite);
        }
        return found;
    }

    private static ComparisonSuite load(String className) {
        Class<?> type;
        try {
            type = Class.forName(className);
        } catch (ClassNotFoundException e) {
            return null;
        }
        try {
            if (ComparisonSuite.class.isAssignableFrom(type)) {
                return (ComparisonSuite) type.getConstructor().newInstance();
            }
            Method main = type.getMethod("main", String[].class);
            if (!Modifier.isStatic(main.getModifiers())) {
                return null;
            }
            String name = type.getPackageName().substring(type.getPackageName().lastIndexOf('.') + 1);
            return new MainMethodSuite(name, main);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not load benchmark suite " + className, e);
        }
    }

    /**
     * A suite that is a plain program with flags of its own: run with {@code --seconds} (the measure time),
     * {@code --rounds} (the repeats) and {@code --rows}, which it may ignore; it prints its own output, so its section
     * only says that it ran.
     */
    private record MainMethodSuite(String name, Method main) implements ComparisonSuite {
        @Override
        public SideBySide.Report run(BenchOptions options) throws Exception {
            main.invoke(null, (Object) new String[] {"--seconds",
                Long.toString(Math.max(1, options.measure().toSeconds())), "--rounds",
                Integer.toString(options.repeats()), "--rows", String.join(",", options.rows())});
            return new SideBySide.Report("(" + main.getDeclaringClass().getName()
                    + " printed its own results above)\n", true, false);
        }
    }
}
