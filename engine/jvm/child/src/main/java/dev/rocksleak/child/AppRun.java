package dev.rocksleak.child;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import com.fasterxml.jackson.core.JsonGenerator;

import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.RocksDB;

/**
 * Runs the user's application under Kafka's own TopologyTestDriver, one lifecycle per task's life: a driver is
 * created (the task's stores open, Kafka calling the user's config setter), the user's {@code pipe} is called once
 * per step and the driver's wall clock advanced after it (punctuators fire), then the driver is closed (the stores
 * close, as when the task migrates). Samples and the summary go out as the op stream's run sends them (fd 3), with
 * two more triggers in a sampled lifecycle, {@code after_open} (after its first step) and {@code before_close} (after
 * its last), both with the task's stores open, so that growth within a lifecycle is told apart from growth across
 * lifecycles (docs/your-application.md).
 *
 * <p>The user's code is contained: an exception names the application's frames (those of classes the {@link #LOADER} class
 * loader defined); {@code System.exit}, a step longer than {@code hang_after_ms} and an RSS above {@code max_rss} end
 * the run with a summary naming where the main thread was, and exit status 1. No value of a secret key of the
 * user's properties is written (AppRedactor).
 */
final class AppRun {
    /** schema.TriggerAfterOpen and schema.TriggerBeforeClose: the stores open, after the first step and the last. */
    static final String TRIGGER_AFTER_OPEN = "after_open";
    static final String TRIGGER_BEFORE_CLOSE = "before_close";
    /**
     * The name of the class loader of the user's classes: the frames of the classes it defines are the application's
     * (not "app", which is the JDK's own system class loader's name, the loader of the child's and Kafka's classes).
     */
    static final String LOADER = "rocksleak-user-application";
    private static final long STREAM_TIME_BASE_MS = 1_700_000_000_000L; // 2023-11-14, a plausible record time

    private final Job job;
    private final AppJob app;
    private final URLClassLoader loader;
    private final Properties userProps;
    private Properties driverProps;
    private final AppRedactor redactor;
    private final Class<?> userClass;
    private final Method topologyMethod;
    private final Method pipeMethod;

    private Json out;
    private Sampler sampler;
    private final Ledger ledger = new Ledger();
    private AppStores stores; // the instrumented run's (null when bare)
    private long lifecycles;
    private long records;
    private long steps;
    private long punctuations;
    private long lastLC;
    private long lastSampleNs;
    private int seq;
    private long startNs;
    private volatile long stepStartedNs;
    private volatile Thread mainThread;
    private boolean finished; // the summary is written: nothing more goes out

    private AppRun(final Job job, final AppJob app) throws Job.BadInput {
        this.job = job;
        this.app = app;
        final List<URL> urls = new ArrayList<>();
        for (final String e : app.classpath) {
            final File f = new File(e);
            if (!f.exists()) {
                throw new Job.BadInput("app.classpath: " + e + " does not exist");
            }
            try {
                urls.add(f.toURI().toURL());
            } catch (final MalformedURLException ex) {
                throw new Job.BadInput("app.classpath: " + e + ": " + ex.getMessage());
            }
        }
        loader = new URLClassLoader(LOADER, urls.toArray(new URL[0]), AppRun.class.getClassLoader());
        userProps = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(app.properties))) {
            userProps.load(in);
        } catch (final IOException | IllegalArgumentException e) {
            throw new Job.BadInput("app.properties: " + app.properties + ": " + e.getMessage());
        }
        redactor = new AppRedactor(userProps);
        userClass = load(app.className, "app.class");
        topologyMethod = method("topology", Topology.class, Properties.class);
        pipeMethod = method("pipe", null, TopologyTestDriver.class, long.class, Instant.class, Random.class);
        driverProps = driverProperties(true);
    }

    /** Checks the app as {@link #run} would before any work (the Go parent's preflight: Main --check-app). */
    static void check(final Job job, final AppJob app) throws Job.BadInput {
        new AppRun(job, app);
    }

    private Class<?> load(final String name, final String field) throws Job.BadInput {
        try {
            return Class.forName(name, false, loader);
        } catch (final ClassNotFoundException | LinkageError e) {
            throw new Job.BadInput(field + ": class " + name + " not found in app.classpath " + app.classpath
                + (e instanceof ClassNotFoundException ? "" : " (" + e + ")"));
        }
    }

    private Method method(final String name, final Class<?> returns, final Class<?>... params) throws Job.BadInput {
        final String sig = name + "(" + String.join(", ", java.util.Arrays.stream(params).map(Class::getSimpleName)
            .toArray(String[]::new)) + ")";
        try {
            final Method m = userClass.getMethod(name, params);
            final Class<?> r = m.getReturnType();
            if (returns != null ? !returns.isAssignableFrom(r) : r != int.class && r != long.class) {
                throw new Job.BadInput("app.class: " + userClass.getName() + "." + sig + " returns " + r.getName()
                    + ", not " + (returns != null ? returns.getName() : "int or long (the records it piped)"));
            }
            return m;
        } catch (final NoSuchMethodException e) {
            throw new Job.BadInput("app.class: " + userClass.getName() + " has no public method " + sig
                + " (docs/your-application.md)");
        }
    }

    /**
     * The user's properties with the child's: its state directory, and (watch) Kafka calling AppSetter, which calls
     * theirs; without watch (--bare, the benchmark's baseline) Kafka calls theirs directly.
     */
    private Properties driverProperties(final boolean watch) throws Job.BadInput {
        final Properties p = new Properties();
        p.putAll(userProps);
        final String setter = userProps.getProperty(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
        if (setter != null && !setter.isBlank()) {
            final Class<?> c = load(setter.trim(), StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG + " (in "
                + app.properties + ")");
            if (!RocksDBConfigSetter.class.isAssignableFrom(c)) {
                throw new Job.BadInput(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG + " (in " + app.properties
                    + "): " + setter + " does not implement " + RocksDBConfigSetter.class.getName());
            }
            p.put(AppSetter.USER_SETTER, setter.trim());
        }
        if (watch) {
            p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, AppSetter.class.getName());
        }
        p.put(StreamsConfig.STATE_DIR_CONFIG, new File(job.stateDir, "app").getAbsolutePath());
        p.putIfAbsent(StreamsConfig.APPLICATION_ID_CONFIG, "rocksleak-app");
        p.putIfAbsent(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092"); // the driver contacts no broker
        return p;
    }

    /** Runs the app (see the class comment); the exit status: 0 done, 1 the run failed, 2 bad input. */
    static int run(final Job job, final AppJob app, final boolean bare, final Json out) {
        final AppRun r;
        try {
            r = new AppRun(job, app);
        } catch (final Job.BadInput e) {
            System.err.println("rocksleak child: " + e.getMessage());
            return 2;
        }
        return r.run(bare, out);
    }

    private int run(final boolean bare, final Json events) {
        this.out = events;
        if (bare) {
            try {
                driverProps = driverProperties(false);
            } catch (final Job.BadInput e) {
                System.err.println("rocksleak child: " + e.getMessage());
                return 2;
            }
        }
        mainThread = Thread.currentThread();
        Thread.currentThread().setContextClassLoader(loader);
        AppSetter.ledger = bare ? null : ledger;
        stores = bare ? null : new AppStores(ledger, job.readOptionsFix);
        RocksDB.loadLibrary();
        startNs = System.nanoTime();
        final AppWatch watch = new AppWatch(this, app);
        String error = null;
        int status = 0;
        boolean interrupted = false;
        boolean settled = false;
        try {
            if (!bare) {
                sampler = new Sampler(job.allocator);
                info();
                sample("start", null);
            }
            watch.start();
            final Object user = userClass.getDeclaredConstructor().newInstance();
            final Random rnd = new Random(job.seed);
            while (true) {
                interrupted = Main.interrupted;
                settled = Main.settled;
                if (interrupted || settled || limitReached()) {
                    break;
                }
                lifecycle(user, rnd, bare);
            }
        } catch (final Throwable e) {
            error = describe(e instanceof InvocationTargetException ? e.getCause() : e);
            status = 1;
        }
        watch.stop();
        synchronized (this) {
            if (finished) {
                return 1; // the watch ended the run; the process halts
            }
            try {
                if (!bare) {
                    // Every driver is closed here (each task's life closes its own), so the profile's unfreed
                    // allocations are what the task lives left behind.
                    NativeMemProfile.stopped(lifecycles, 0, sampler.nativeHeap(), elapsedNs());
                    sample("end", null);
                }
                summary(interrupted || Main.interrupted, settled, error);
            } catch (final IOException | RuntimeException e) {
                status = 1;
            }
            finished = true;
        }
        try {
            Executor.deleteTree(Path.of(job.stateDir));
        } catch (final IOException e) {
            System.err.println("rocksleak child: removing " + job.stateDir + ": " + e);
        }
        if (error != null) {
            System.err.println("rocksleak child: " + error);
        }
        final double s = elapsedNs() / 1e9;
        System.err.printf("rocksleak child: %s app: %d lifecycles in %.3f s (%.2f/s)%n", bare ? "bare" : "instrumented",
            lifecycles, s, lifecycles / s);
        return status;
    }

    private boolean limitReached() {
        return job.lifecycles > 0 && lifecycles >= job.lifecycles
            || job.durationNs > 0 && elapsedNs() >= job.durationNs;
    }

    /** One task's life: a driver made, the steps piped, the driver closed. */
    private void lifecycle(final Object user, final Random rnd, final boolean bare) throws Throwable {
        final Topology topology = (Topology) call(() -> topologyMethod.invoke(user, copy(userProps)));
        final TopologyTestDriver driver = new TopologyTestDriver(topology, driverProps,
            Instant.ofEpochMilli(STREAM_TIME_BASE_MS + steps * app.wallClockPerStepMs));
        final boolean sampled = !bare && lifecycles + 1 - lastLC >= job.sampleEveryLifecycles;
        try {
            if (!bare) {
                stores.look(driver);
            }
            for (int i = 0; i < app.stepsPerLifecycle; i++) {
                stepStartedNs = System.nanoTime();
                final Instant streamTime = Instant.ofEpochMilli(STREAM_TIME_BASE_MS + steps * app.streamTimePerStepMs);
                final Object n = call(() -> pipeMethod.invoke(user, driver, steps, streamTime, rnd));
                records += ((Number) n).longValue();
                driver.advanceWallClockTime(Duration.ofMillis(app.wallClockPerStepMs));
                steps++;
                stepStartedNs = 0;
                if (!bare) {
                    stores.look(driver);
                }
                if (sampled && i == 0 && app.stepsPerLifecycle > 1) {
                    sample(TRIGGER_AFTER_OPEN, KafkaFigures.of(driver.metrics()));
                } else if (!bare && System.nanoTime() - lastSampleNs >= job.sampleIntervalMs * 1_000_000L) {
                    sample("timer", null);
                }
            }
            final long[] k = KafkaFigures.of(driver.metrics());
            punctuations += k[4];
            if (sampled) {
                sample(TRIGGER_BEFORE_CLOSE, k);
            }
        } finally {
            stepStartedNs = System.nanoTime();
            driver.close();
            stepStartedNs = 0;
            if (!bare) {
                stores.closed();
            }
        }
        lifecycles++;
        if (!bare && lifecycles - lastLC >= job.sampleEveryLifecycles) {
            sample("lifecycle", null);
        }
    }

    private interface UserCall {
        Object call() throws Exception;
    }

    /** Calls the user's method, rethrowing what it threw (not the reflection's wrapper). */
    private static Object call(final UserCall c) throws Throwable {
        try {
            return c.call();
        } catch (final InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Properties copy(final Properties p) {
        final Properties c = new Properties();
        c.putAll(p);
        return c;
    }

    long elapsedNs() {
        return System.nanoTime() - startNs;
    }

    /** How long the current step (or close) has run, in ns; 0 when none is running. */
    long stepRunningNs() {
        final long s = stepStartedNs;
        return s == 0 ? 0 : System.nanoTime() - s;
    }

    Thread mainThread() {
        return mainThread;
    }

    /**
     * Ends the run from another thread (the watch, the exit hook): writes the summary with the error once, unless
     * the run already wrote its own; true when this call wrote it.
     */
    synchronized boolean fail(final String error) {
        if (finished) {
            return false;
        }
        finished = true;
        try {
            summary(Main.interrupted, false, redactor.redact(error));
        } catch (final IOException | RuntimeException e) {
            System.err.println("rocksleak child: writing the summary: " + e);
        }
        System.err.println("rocksleak child: " + redactor.redact(error));
        return true;
    }

    /** The throwable and its causes in words, with the application's frames. */
    String describe(final Throwable e) {
        final StringBuilder b = new StringBuilder(String.valueOf(e));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            b.append(": ").append(c);
        }
        final List<StackTraceElement> all = new ArrayList<>();
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            all.addAll(List.of(c.getStackTrace()));
        }
        b.append("; ").append(AppWatch.frames(all.toArray(new StackTraceElement[0])));
        return redactor.redact(b.toString());
    }

    private void info() throws IOException {
        synchronized (this) {
            final JsonGenerator g = out.begin("info");
            g.writeNumberField("pid", ProcessHandle.current().pid());
            g.writeStringField("rocksdb_version", RocksDB.rocksdbVersion().toString());
            g.writeStringField("allocator", job.allocator);
            out.end();
        }
    }

    private synchronized void sample(final String trigger, final long[] kafka) throws IOException {
        if (finished) {
            return;
        }
        final Sampler.Reading r = sampler.read(true);
        final Map<String, Long> live = ledger.live();
        if (kafka != null && kafka[3] > 0) {
            live.put("iterator", kafka[3]);
        }
        final long[] caches = AppSetter.caches();
        final long[] rocks = kafka == null ? new long[7] : new long[] {kafka[0], kafka[1], kafka[2], 0, 0, 0, 0};
        rocks[3] = AppSetter.OPENS.get() - AppSetter.CLOSES.get(); // the RocksDB instances open
        System.arraycopy(caches, 0, rocks, 4, 3);
        final JsonGenerator g = out.begin("sample");
        Main.sampleFields(g, new Main.SampleValues(job.model, seq++, elapsedNs(), trigger, lifecycles, 0, 0, 0, records,
            0, 0, r, live, rocks));
        out.end();
        if (!trigger.equals(TRIGGER_AFTER_OPEN) && !trigger.equals(TRIGGER_BEFORE_CLOSE)) {
            // rocksleak run --profile: the recording starts at a sample between task lives, never inside one.
            NativeMemProfile.sampled(trigger.equals("end"), lifecycles, 0, r.nativeHeap, elapsedNs());
        }
        if (trigger.equals("lifecycle")) {
            lastLC = lifecycles;
        }
        lastSampleNs = System.nanoTime();
    }

    private void summary(final boolean interrupted, final boolean settled, final String error) throws IOException {
        final JsonGenerator g = out.begin("summary");
        g.writeStringField("model", job.model);
        g.writeBooleanField("interrupted", interrupted);
        g.writeBooleanField("stopped_early", settled);
        g.writeNumberField("steps", steps);
        g.writeNumberField("lifecycles", lifecycles);
        g.writeNumberField("records", records);
        // Records lost are not measured for an application: its topology's outputs are its own, and nothing
        // reads its stores back against a changelog (schema.Summary.RecordsNotMeasured), so not 0 by default.
        g.writeStringField("records_not_measured", "an application's records are not read back against a changelog");
        g.writeNumberField("pinned_dbs", 0);
        Json.map(g, "ledger_at_end", ledger.live());
        Json.map(g, "released_late", Map.of());
        g.writeObjectFieldStart("app");
        g.writeNumberField("punctuations", punctuations);
        g.writeNumberField("store_opens", AppSetter.OPENS.get());
        g.writeNumberField("segment_opens", AppSetter.SEGMENT_OPENS.get());
        g.writeNumberField("store_closes", AppSetter.CLOSES.get());
        g.writeNumberField("steps_per_lifecycle", app.stepsPerLifecycle);
        g.writeEndObject();
        g.writeNumberField("elapsed_ns", elapsedNs());
        if (error != null) {
            g.writeStringField("error", redactor.redact(error));
        }
        out.end();
    }
}
