package dev.rocksleak.child;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The job line (the Go harness.Job, with its scenarios.Scenario), the fields the JVM child uses. A missing or
 * ill-typed field is a BadInput naming it (the child then exits with status 2).
 */
final class Job {
    /** Bad input: the message names the field. */
    static final class BadInput extends Exception {
        BadInput(final String msg) {
            super(msg);
        }
    }

    /** The job's keys parse read, the scenario's as "scenario.<key>" (ProtocolTest checks them against the Go side). */
    final java.util.Set<String> read = new java.util.TreeSet<>();
    private JsonNode scenarioNode;

    String model;
    long seed;
    String stateDir;
    int ops;
    String kafkaVersion;
    boolean synthetic;
    /** RocksJava's read-options fix (facebook/rocksdb#15069): close each DB's defaultReadOptions_ after its close. */
    boolean readOptionsFix;
    String allocator;
    String changelogDir;

    // scenario
    String name;
    String store;
    int tasks;
    int storesPerTask;
    long retentionMs;
    long segmentIntervalMs;
    long additionalRetentionMs;
    int restoreBatchRecords;
    int valueBytes;
    int keySpread;
    int changelogPartitions;
    boolean exactlyOnce;
    long lifecycles;
    long durationNs;
    int sampleEveryLifecycles;
    long sampleIntervalMs;
    int syntheticLeakBytes;
    long boundedCacheBytes;
    long boundedWriteBufferBytes;
    long restoreScratchBytes;
    /** rocksleak run --profile (harness.ProfileJob); null when not profiled. */
    Profile profile;
    /**
     * rocksleak disk-full (harness.DiskFullJob): how many opens to make on the full state directory instead of
     * running the op stream; 0 when absent.
     */
    int diskFullAttempts;

    /** harness.ProfileJob: where and from when the child records native allocations (NativeMemProfile). */
    static final class Profile {
        String dir;
        long warmLifecycles;
        long warmAfterNs;
        long intervalBytes;

        /** The job's profile, null when absent; its dir is required, the counts are integers (0 when absent). */
        static Profile parse(final JsonNode p) throws BadInput {
            if (p == null || p.isNull()) {
                return null;
            }
            final JsonNode dir = p.get("dir");
            if (dir == null || !dir.isTextual() || dir.asText().isEmpty()) {
                throw new BadInput("job: profile.dir: missing or not a string");
            }
            final Profile out = new Profile();
            out.dir = dir.asText();
            out.warmLifecycles = count(p, "warm_lifecycles");
            out.warmAfterNs = count(p, "warm_after_ns");
            out.intervalBytes = count(p, "interval_bytes");
            return out;
        }

        private static long count(final JsonNode p, final String f) throws BadInput {
            final JsonNode v = p.get(f);
            if (v == null || v.isNull()) {
                return 0;
            }
            if (!v.isIntegralNumber() || v.asLong() < 0) {
                throw new BadInput("job: profile." + f + ": not a count: " + v);
            }
            return v.asLong();
        }
    }

    static Job parse(final JsonNode j) throws BadInput {
        final Job job = new Job();
        job.model = job.str(j, "model", true);
        job.seed = job.num(j, "seed", true);
        job.stateDir = job.str(j, "state_dir", true);
        job.ops = (int) job.num(j, "ops", false);
        job.kafkaVersion = job.str(j, "kafka_version", false);
        job.synthetic = job.bool(j, "synthetic");
        job.readOptionsFix = job.bool(j, "read_options_fix");
        job.allocator = job.str(j, "allocator", false);
        if (job.allocator == null || job.allocator.isEmpty()) {
            job.allocator = "glibc";
        }
        if (!job.allocator.equals("glibc") && !job.allocator.equals("jemalloc")) {
            throw new BadInput("job: allocator: \"" + job.allocator + "\" is not glibc or jemalloc");
        }
        job.changelogDir = job.str(j, "changelog_dir", false);
        job.read.add("profile");
        job.profile = Profile.parse(j.get("profile"));
        final JsonNode df = j.get("disk_full");
        if (df != null && !df.isNull()) {
            job.read.add("disk_full");
            final JsonNode n = df.get("attempts");
            if (n == null || !n.isIntegralNumber() || n.asInt() < 1) {
                throw new BadInput("job: disk_full.attempts: missing or not a positive integer: " + n);
            }
            job.diskFullAttempts = n.asInt();
        }
        job.read.add("scenario");
        final JsonNode s = j.get("scenario");
        if (s == null || !s.isObject()) {
            throw new BadInput("job: scenario: missing or not an object");
        }
        job.scenarioNode = s;
        job.name = job.str(s, "name", true);
        job.store = job.str(s, "store", true);
        if (!job.store.equals("kv") && !job.store.equals("window") && !job.store.equals("migrating")) {
            throw new BadInput("job: scenario.store: \"" + job.store + "\" is not kv, window or migrating");
        }
        job.tasks = job.positive(s, "tasks");
        job.storesPerTask = job.positive(s, "stores_per_task");
        job.retentionMs = job.num(s, "retention_ms", false);
        job.segmentIntervalMs = job.num(s, "segment_interval_ms", false);
        job.additionalRetentionMs = job.num(s, "additional_retention_ms", false);
        job.restoreBatchRecords = job.positive(s, "restore_batch_records");
        job.valueBytes = job.positive(s, "value_bytes");
        job.keySpread = job.positive(s, "key_spread");
        job.changelogPartitions = job.positive(s, "changelog_partitions");
        job.exactlyOnce = job.bool(s, "exactly_once");
        job.lifecycles = job.num(s, "lifecycles", false);
        job.durationNs = parseGoDuration(job.str(s, "duration", false), "scenario.duration");
        job.sampleEveryLifecycles = Math.max(1, (int) job.num(s, "sample_every_lifecycles", false));
        job.sampleIntervalMs = Math.max(1, job.num(s, "sample_interval_ms", false));
        job.syntheticLeakBytes = (int) job.num(s, "synthetic_leak_bytes", false);
        job.boundedCacheBytes = job.num(s, "bounded_cache_bytes", false);
        job.boundedWriteBufferBytes = job.num(s, "bounded_write_buffer_bytes", false);
        job.restoreScratchBytes = job.num(s, "restore_scratch_bytes", false);
        if (job.store.equals("window") && job.retentionMs <= 0) {
            throw new BadInput("job: scenario.retention_ms: must be > 0 for a window store, got " + job.retentionMs);
        }
        if (job.lifecycles <= 0 && job.durationNs <= 0) {
            throw new BadInput("job: scenario.lifecycles and scenario.duration: at least one must be set");
        }
        if (job.synthetic && job.syntheticLeakBytes <= 0) {
            throw new BadInput("job: scenario.synthetic_leak_bytes: must be > 0 for a +synthetic model");
        }
        return job;
    }

    /** spec.SegmentIntervalMs: the explicit interval, else max(retention / 2, 60 s) as Kafka derives it. */
    long segmentInterval() {
        return segmentIntervalMs > 0 ? segmentIntervalMs : Math.max(retentionMs / 2, 60_000L);
    }

    private String str(final JsonNode j, final String f, final boolean required) throws BadInput {
        read.add(j == scenarioNode ? "scenario." + f : f);
        final JsonNode v = j.get(f);
        if (v == null || v.isNull()) {
            if (required) {
                throw new BadInput("job: " + f + ": missing");
            }
            return null;
        }
        if (!v.isTextual()) {
            throw new BadInput("job: " + f + ": not a string: " + v);
        }
        return v.asText();
    }

    private long num(final JsonNode j, final String f, final boolean required) throws BadInput {
        read.add(j == scenarioNode ? "scenario." + f : f);
        final JsonNode v = j.get(f);
        if (v == null || v.isNull()) {
            if (required) {
                throw new BadInput("job: " + f + ": missing");
            }
            return 0;
        }
        if (!v.isIntegralNumber()) {
            throw new BadInput("job: " + f + ": not an integer: " + v);
        }
        return v.asLong();
    }

    private int positive(final JsonNode j, final String f) throws BadInput {
        final long v = num(j, f, true);
        if (v < 1 || v > Integer.MAX_VALUE) {
            throw new BadInput("job: scenario." + f + ": must be >= 1, got " + v);
        }
        return (int) v;
    }

    private boolean bool(final JsonNode j, final String f) throws BadInput {
        read.add(j == scenarioNode ? "scenario." + f : f);
        final JsonNode v = j.get(f);
        if (v == null || v.isNull()) {
            return false;
        }
        if (!v.isBoolean()) {
            throw new BadInput("job: " + f + ": not a boolean: " + v);
        }
        return v.asBoolean();
    }

    private static final Pattern DUR = Pattern.compile("(\\d+(?:\\.\\d*)?)(ns|us|µs|ms|s|m|h)");

    /** A Go time.Duration string ("0s", "1m30s", "1.5s", "250ms"), in nanoseconds. */
    static long parseGoDuration(final String s, final String field) throws BadInput {
        if (s == null || s.isEmpty() || s.equals("0")) {
            return 0;
        }
        final Matcher m = DUR.matcher(s);
        int at = 0;
        double ns = 0;
        while (at < s.length() && m.find(at) && m.start() == at) {
            final double v = Double.parseDouble(m.group(1));
            switch (m.group(2)) {
                case "ns": ns += v; break;
                case "us": case "µs": ns += v * 1e3; break;
                case "ms": ns += v * 1e6; break;
                case "s": ns += v * 1e9; break;
                case "m": ns += v * 60e9; break;
                default: ns += v * 3600e9; break;
            }
            at = m.end();
        }
        if (at != s.length()) {
            throw new BadInput("job: " + field + ": \"" + s + "\" is not a duration such as \"30s\"");
        }
        return (long) ns;
    }
}
