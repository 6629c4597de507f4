package dev.rocksleak.child;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The job's "app" object (the Go harness.AppJob): the user's application the JVM child runs under Kafka's
 * TopologyTestDriver instead of the op stream (docs/your-application.md). A missing or ill-typed field is a BadInput
 * naming it (exit status 2).
 */
final class AppJob {
    /** The user's class with {@code topology(Properties)} and {@code pipe(TopologyTestDriver, long, Instant, Random)}. */
    String className;
    /** The user's classpath entries (jars, directories), loaded by a class loader of their own (AppRun.LOADER). */
    final List<String> classpath = new ArrayList<>();
    /** The user's Kafka Streams properties file, as the application uses it. */
    String properties;
    int stepsPerLifecycle;
    long streamTimePerStepMs;
    long wallClockPerStepMs;
    /** A step (the user's pipe and the driver's wall-clock advance) that runs longer than this is a hang. */
    long hangAfterMs;
    /** The child's RSS above which the user's code is a runaway allocation (0: none; the parent's guard still watches). */
    long maxRss;

    static AppJob parse(final JsonNode j) throws Job.BadInput {
        final AppJob a = new AppJob();
        a.className = text(j, "class");
        a.properties = text(j, "properties");
        final JsonNode cp = j.get("classpath");
        if (cp == null || !cp.isArray() || cp.isEmpty()) {
            throw new Job.BadInput("job: app.classpath: missing or empty (the application's jars and directories)");
        }
        for (final JsonNode e : cp) {
            if (!e.isTextual() || e.asText().isEmpty()) {
                throw new Job.BadInput("job: app.classpath: not a path: " + e);
            }
            a.classpath.add(e.asText());
        }
        a.stepsPerLifecycle = (int) positive(j, "steps_per_lifecycle");
        a.streamTimePerStepMs = positive(j, "stream_time_per_step_ms");
        a.wallClockPerStepMs = positive(j, "wall_clock_per_step_ms");
        a.hangAfterMs = positive(j, "hang_after_ms");
        final JsonNode r = j.get("max_rss");
        a.maxRss = r == null || r.isNull() ? 0 : r.asLong();
        return a;
    }

    private static String text(final JsonNode j, final String f) throws Job.BadInput {
        final JsonNode v = j.get(f);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new Job.BadInput("job: app." + f + ": missing or not a string");
        }
        return v.asText();
    }

    private static long positive(final JsonNode j, final String f) throws Job.BadInput {
        final JsonNode v = j.get(f);
        if (v == null || !v.isIntegralNumber() || v.asLong() < 1) {
            throw new Job.BadInput("job: app." + f + ": must be an integer >= 1, got " + v);
        }
        return v.asLong();
    }
}
