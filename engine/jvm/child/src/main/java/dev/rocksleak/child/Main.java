package dev.rocksleak.child;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.rocksdb.RocksDB;

/**
 * rocksleak's JVM child: runs Kafka Streams' own state stores (the kafka-streams jar on the classpath) through the
 * op stream of rocksleak's child protocol and streams its events (harness.Event: info, sample, summary) as JSON
 * lines on file descriptor 3. Standard input: the job (harness.Job) on the first line, then the ops, one per line
 * (Go package workload). See docs/jvm-child.md.
 *
 * <p>Usage: {@code java [-XX:NativeMemoryTracking=summary] -cp rocksleak-child.jar:<classpath> dev.rocksleak.child.Main
 * [--bare] 3>events.jsonl < job-and-ops.jsonl}. With --bare it runs the same store operations with no sampling and
 * no ledger and writes only its summary (the cost comparison's baseline). Exit status: 0 done, 1 the run failed
 * (its summary says why), 2 bad input (the message names the field).
 */
public final class Main {
    private Main() {
    }

    public static void main(final String[] args) {
        boolean bare = false;
        boolean checkApp = false;
        for (final String a : args) {
            if (a.equals("--bare")) {
                bare = true;
            } else if (a.equals("--check-app")) {
                checkApp = true; // the job's app is checked (AppRun.check), nothing run: 0 or 2
            } else {
                System.err.println("rocksleak child: unknown argument " + a + " (usage: Main [--bare] [--check-app])");
                System.exit(2);
            }
        }
        System.exit(run(bare, checkApp));
    }

    static volatile boolean settled;
    static volatile boolean interrupted;

    static int run(final boolean bare, final boolean checkApp) {
        final OutputStream events;
        try {
            events = new FileOutputStream("/proc/self/fd/3");
        } catch (final IOException e) {
            System.err.println("rocksleak child: file descriptor 3 (the event stream) is not open: " + e.getMessage());
            return 2;
        }
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        final ObjectMapper mapper = new ObjectMapper();
        final Job job;
        AppJob app = null;
        try {
            final String line = in.readLine();
            if (line == null) {
                throw new Job.BadInput("job: standard input is empty (the job is its first line)");
            }
            final JsonNode node = mapper.readTree(line);
            job = Job.parse(node);
            if (node.hasNonNull("app")) {
                app = AppJob.parse(node.get("app"));
                if (checkApp) {
                    AppRun.check(job, app);
                    return 0;
                }
            }
        } catch (final Job.BadInput e) {
            System.err.println("rocksleak child: " + e.getMessage());
            return 2;
        } catch (final IOException e) {
            System.err.println("rocksleak child: job: not JSON: " + e.getMessage());
            return 2;
        }
        installSignals();
        NativeMemProfile.install(job.profile, mapper); // rocksleak run --profile: any loop below
        try (Json out = new Json(events)) {
            if (app != null) {
                return AppRun.run(job, app, bare, out); // the user's application (docs/your-application.md)
            }
            return new Run(job, bare, out, in, mapper).run();
        } catch (final IOException e) {
            System.err.println("rocksleak child: writing events: " + e);
            return 1;
        }
    }

    private static void installSignals() {
        // SIGUSR1: the parent's verdict is settled (stop as at the stop condition); SIGTERM: interrupted.
        sun.misc.Signal.handle(new sun.misc.Signal("USR1"), s -> settled = true);
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), s -> interrupted = true);
    }

    /** One model's run. */
    private static final class Run implements Executor.StopCheck {
        private final Job job;
        private final boolean bare;
        private final Json out;
        private final BufferedReader in;
        private final ObjectMapper mapper;
        private Executor ex;
        private Sampler sampler;
        private int seq;
        private long lastLC;
        private long lastSampleNs;
        private long sampleNs; // wall time spent taking samples

        Run(final Job job, final boolean bare, final Json out, final BufferedReader in, final ObjectMapper mapper) {
            this.job = job;
            this.bare = bare;
            this.out = out;
            this.in = in;
            this.mapper = mapper;
        }

        int run() throws IOException {
            RocksDB.loadLibrary();
            String error = null;
            int status = 0;
            Executor.Stop stop = Executor.Stop.NONE;
            try {
                ex = new Executor(job, !bare);
                if (job.diskFullAttempts > 0) {
                    DiskFull.fill(Path.of(job.stateDir)); // full from here on (rocksleak disk-full)
                }
                if (!bare) {
                    sampler = new Sampler(job.allocator);
                    info();
                    sample("start");
                }
                for (int i = 0; i < job.diskFullAttempts && !interrupted; i++) {
                    DiskFull.attempt(ex, i); // the op stream is not read: the parent's writer stops at the exit
                    if (sampler != null) {
                        sample("lifecycle");
                    }
                }
                if (job.diskFullAttempts > 0) {
                    stop = Executor.Stop.END;
                }
                String line;
                while (stop == Executor.Stop.NONE) {
                    if (interrupted) {
                        stop = Executor.Stop.INTERRUPTED;
                        break;
                    }
                    line = in.readLine();
                    if (line == null) {
                        stop = Executor.Stop.END;
                        break;
                    }
                    if (line.isBlank()) {
                        continue;
                    }
                    final JsonNode op;
                    try {
                        op = mapper.readTree(line);
                    } catch (final IOException e) {
                        throw new Job.BadInput("op: not JSON: " + line);
                    }
                    Ops.check(op);
                    stop = ex.execute(op, this);
                }
                if (interrupted) {
                    stop = Executor.Stop.INTERRUPTED;
                }
            } catch (final Job.BadInput e) {
                error = e.getMessage();
                status = 2;
            } catch (final Exception | LinkageError e) {
                error = describe(e);
                status = 1;
            }
            if (ex == null) {
                System.err.println("rocksleak child: " + error);
                return status;
            }
            if (!bare && sampler != null) {
                try {
                    sample("end");
                } catch (final RuntimeException | IOException e) {
                    error = error == null ? "sampling: " + e : error;
                    status = Math.max(status, 1);
                }
            }
            try {
                ex.closeAll();
            } catch (final RuntimeException | IOException e) {
                error = error == null ? "closing the stores: " + describe(e) : error;
                status = Math.max(status, 1);
            }
            if (job.profile != null && sampler != null) {
                try {
                    NativeMemProfile.stopped(ex.lifecycles, ex.failedCloses, sampler.nativeHeap(), ex.elapsedNs());
                } catch (final RuntimeException | IOException e) {
                    error = error == null ? "profile: " + describe(e) : error;
                    status = Math.max(status, 1);
                }
            }
            if (sampler != null) {
                try {
                    sampler.close();
                } catch (final IOException e) {
                    System.err.println("rocksleak child: closing the sampler: " + e);
                }
            }
            summary(stop, error);
            try {
                Executor.deleteTree(Path.of(job.stateDir));
            } catch (final IOException e) {
                System.err.println("rocksleak child: removing " + job.stateDir + ": " + e);
            }
            if (error != null) {
                System.err.println("rocksleak child: " + error);
            }
            // The instrument's cost, for the cost comparison (not an event: the schema has no field for it).
            System.err.printf("rocksleak child: %s: %d lifecycles in %.3f s (%.2f/s), %d samples taking %.3f s "
                    + "(%.0f µs each)%n", bare ? "bare" : "instrumented", ex.lifecycles, ex.elapsedNs() / 1e9,
                ex.lifecycles / (ex.elapsedNs() / 1e9), seq, sampleNs / 1e9, seq == 0 ? 0.0 : sampleNs / 1e3 / seq);
            return status;
        }

        private static String describe(final Throwable e) {
            final StringBuilder b = new StringBuilder(e.toString());
            for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
                b.append(": ").append(c);
            }
            return b.toString();
        }

        @Override
        public Executor.Stop atStep(final Executor e) {
            if (interrupted) {
                return Executor.Stop.INTERRUPTED;
            }
            if (job.lifecycles > 0 && e.lifecycles >= job.lifecycles) {
                return Executor.Stop.LIMIT;
            }
            if (job.durationNs > 0 && e.elapsedNs() >= job.durationNs) {
                return Executor.Stop.LIMIT;
            }
            if (settled) {
                return Executor.Stop.SETTLED;
            }
            return Executor.Stop.NONE;
        }

        @Override
        public void samplePoint(final Executor e) throws IOException {
            if (bare) {
                return;
            }
            if (e.lifecycles - lastLC >= job.sampleEveryLifecycles) {
                sample("lifecycle");
            } else if (System.nanoTime() - lastSampleNs >= job.sampleIntervalMs * 1_000_000L) {
                sample("timer");
            }
        }

        private void info() throws IOException {
            final JsonGenerator g = out.begin("info");
            g.writeNumberField("pid", ProcessHandle.current().pid());
            g.writeStringField("rocksdb_version", RocksDB.rocksdbVersion().toString());
            g.writeStringField("allocator", job.allocator);
            out.end();
        }

        private void sample(final String trigger) throws IOException {
            final long t0 = System.nanoTime();
            final Sampler.Reading r = sampler.read(true);
            final long[] rocks = ex.rocksdbFigures();
            final Map<String, Long> live = ex.ledger.live();
            final JsonGenerator g = out.begin("sample");
            sampleFields(g, new SampleValues(job.model, seq++, ex.elapsedNs(), trigger, ex.lifecycles, ex.failedCloses,
                ex.initFailures, ex.taskErrors, ex.records, ex.restores, ex.restoredRecords, r, live, rocks));
            out.end();
            NativeMemProfile.sampled(trigger.equals("end"), ex.lifecycles, ex.failedCloses, r.nativeHeap, ex.elapsedNs());
            if (!trigger.equals("timer")) {
                lastLC = ex.lifecycles;
            }
            lastSampleNs = System.nanoTime();
            sampleNs += lastSampleNs - t0;
        }

        private void summary(final Executor.Stop stop, final String error) throws IOException {
            final JsonGenerator g = out.begin("summary");
            g.writeStringField("model", job.model);
            g.writeBooleanField("interrupted", stop == Executor.Stop.INTERRUPTED);
            g.writeBooleanField("stopped_early", stop == Executor.Stop.SETTLED);
            g.writeNumberField("steps", ex.steps);
            g.writeNumberField("lifecycles", ex.lifecycles);
            g.writeNumberField("failed_closes", ex.failedCloses);
            g.writeNumberField("init_failures", ex.initFailures);
            g.writeNumberField("records", ex.records);
            g.writeNumberField("rebalances", ex.rebalances);
            g.writeNumberField("task_errors", ex.taskErrors);
            if (!ex.taskErrorExamples.isEmpty()) {
                g.writeArrayFieldStart("task_error_examples");
                for (final String s : ex.taskErrorExamples) {
                    g.writeString(s);
                }
                g.writeEndArray();
                g.writeArrayFieldStart("task_error_counts");
                for (final long n : ex.taskErrorCounts) {
                    g.writeNumber(n);
                }
                g.writeEndArray();
            }
            // Records lost are not measured here: this child does not read its stores back against the
            // changelog (the Go child does), so it says so instead of reporting 0 (schema.Summary.RecordsNotMeasured).
            g.writeStringField("records_not_measured", "the JVM child does not read its stores back against the changelog");
            g.writeNumberField("records_write_failed", ex.writeFailed);
            if (!ex.storageFaults.isEmpty()) {
                Json.map(g, "storage_faults", ex.storageFaults);
            }
            ex.restoreTimes().write(g, ex.restoredRecords, ex.restoreLifecycles);
            g.writeNumberField("pinned_dbs", 0);
            Json.map(g, "ledger_at_end", bare ? Map.of() : ex.ledger.live());
            Json.map(g, "released_late", bare ? Map.of() : ex.ledger.releasedLate());
            g.writeNumberField("elapsed_ns", ex.elapsedNs());
            if (error != null) {
                g.writeStringField("error", error);
            }
            out.end();
        }
    }

    /** One sample's values, as sampleFields writes them. */
    record SampleValues(String model, long seq, long elapsedNs, String trigger, long lifecycles, long failedCloses,
        long initFailures, long taskErrors, long records, long restores, long restoredRecords, Sampler.Reading r,
        Map<String, Long> live, long[] rocks) {
    }

    /**
     * Writes a sample's fields: the Go schema.Sample's keys (checked against the Go side's golden sample,
     * harness/testdata/protocol/sample.jsonl, by ProtocolTest), and java_heap, which the parent does not keep yet.
     */
    static void sampleFields(final JsonGenerator g, final SampleValues v) throws IOException {
        g.writeStringField("model", v.model());
        g.writeNumberField("seq", v.seq());
        g.writeNumberField("elapsed_ns", v.elapsedNs());
        g.writeStringField("trigger", v.trigger());
        g.writeNumberField("lifecycles", v.lifecycles());
        g.writeNumberField("failed_closes", v.failedCloses());
        g.writeNumberField("init_failures", v.initFailures());
        g.writeNumberField("task_errors", v.taskErrors());
        g.writeNumberField("records", v.records());
        g.writeNumberField("restores", v.restores());
        g.writeNumberField("restored_records", v.restoredRecords());
        g.writeNumberField("rss", v.r().rss);
        g.writeNumberField("vms", v.r().vms);
        g.writeNumberField("fds", v.r().fds);
        g.writeNumberField("native_heap", v.r().nativeHeap);
        g.writeNumberField("go_heap", Sampler.UNAVAILABLE);
        g.writeNumberField("runtime_bytes", v.r().runtimeBytes);
        g.writeNumberField("java_heap", v.r().javaHeapUsed);
        g.writeNumberField("runtime_malloc", v.r().jvmMalloc);
        Json.map(g, "live_natives", v.live());
        g.writeObjectFieldStart("rocksdb");
        g.writeNumberField("memtables", v.rocks()[0]);
        g.writeNumberField("table_readers", v.rocks()[1]);
        g.writeNumberField("block_cache", v.rocks()[2]);
        g.writeNumberField("open_dbs", v.rocks()[3]);
        // The stores' block caches, each once (AppSetter.caches): an application run's; 0 for a scenario's.
        final long[] r = v.rocks();
        g.writeNumberField("caches", r.length > 4 ? r[4] : 0);
        g.writeNumberField("caches_usage", r.length > 5 ? r[5] : 0);
        g.writeNumberField("caches_capacity", r.length > 6 ? r[6] : 0);
        g.writeEndObject();
    }
}
