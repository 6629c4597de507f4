package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * One protocol on both sides: the Go side's golden job, op stream, sample event and summary's restore object
 * (harness/testdata/protocol, written by go test ./harness -run TestProtocolGoldens -update) against what this
 * child reads and writes. A field added on one side only fails here (or in the Go side's
 * TestProtocolJobGoldenSetsEveryField).
 */
class ProtocolTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The job's keys the child does not read, each with why (everything else it reads must be in the job). */
    static final Map<String, String> IGNORED_JOB_KEYS = Map.of(
        "base_model", "the JVM child takes its Kafka version from kafka_version",
        "app", "read by AppJob.parse (Main): the user's application, run by AppRun instead of the op stream");
    static final Map<String, String> IGNORED_SCENARIO_KEYS = new TreeMap<>(Map.ofEntries(
        Map.entry("description", "text"),
        Map.entry("models", "the parent's: the job names one model"),
        Map.entry("seed", "the job's seed is the one the child uses"),
        Map.entry("step_ms", "carried by the op stream (step's stream_time)"),
        Map.entry("records_per_step", "carried by the op stream (its puts)"),
        Map.entry("close_failure_rate", "carried by the op stream (arm)"),
        Map.entry("close_failure_kind", "carried by the op stream (arm's fault); only transient is honoured"),
        Map.entry("cascade", "carried by the op stream (arm)"),
        Map.entry("init_failure_rate", "carried by the op stream (init_failures): a LockHolder refuses that many opens; "
            + "above 0 on a window store refused before work"),
        Map.entry("rebalance_every_steps", "carried by the op stream (rebalance)"),
        Map.entry("rebalance_tasks", "carried by the op stream (rebalance)"),
        Map.entry("read_back", "carried by the op stream (get, range)"),
        Map.entry("leak_semantics", "only rocksjava is honoured; others are refused before work")));
    /** Sample keys this child writes that the Go schema.Sample does not have (docs/jvm-child.md says so). */
    static final Set<String> JAVA_ONLY_SAMPLE_KEYS = Set.of("java_heap");

    static Path protocol(final String file) {
        return RecordValueTest.repo().resolve("harness/testdata/protocol").resolve(file);
    }

    @Test
    void readsEveryFieldOfTheGoJob() throws Exception {
        final JsonNode j = MAPPER.readTree(Files.readString(protocol("job.json")));
        final Job job = Job.parse(j);
        final Set<String> golden = new TreeSet<>();
        j.fieldNames().forEachRemaining(golden::add);
        j.get("scenario").fieldNames().forEachRemaining(k -> golden.add("scenario." + k));
        final Set<String> known = new TreeSet<>(job.read);
        known.addAll(IGNORED_JOB_KEYS.keySet());
        IGNORED_SCENARIO_KEYS.keySet().forEach(k -> known.add("scenario." + k));
        assertEquals(golden, known, "the Go job's keys (left) against those Job.parse reads or ignores on purpose");
    }

    @Test
    void readsEveryOpOfTheGoStream() throws Exception {
        final List<String> lines = Files.readAllLines(protocol("ops.jsonl"));
        final Set<String> kinds = new TreeSet<>();
        for (final String line : lines) {
            final JsonNode op = MAPPER.readTree(line);
            assertDoesNotThrow(() -> Ops.check(op), line);
            final String kind = op.get("op").asText();
            kinds.add(kind);
            final Set<String> keys = new TreeSet<>();
            op.fieldNames().forEachRemaining(keys::add);
            assertEquals(new TreeSet<>(Ops.KEYS.get(kind)), keys, "op " + kind + ": the Go line's keys against Ops.KEYS");
        }
        assertEquals(new TreeSet<>(Ops.KEYS.keySet()), kinds, "the Go stream's op kinds against Ops.KEYS");
    }

    @Test
    void writesTheGoSample() throws Exception {
        final StringWriter w = new StringWriter();
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(w)) {
            g.writeStartObject();
            Main.sampleFields(g, new Main.SampleValues("m", 1, 2, "lifecycle", 3, 4, 5, 6, 7, 8, 9,
                new Sampler.Reading(), Map.of("db", 1L), new long[] {1, 2, 3, 4}));
            g.writeEndObject();
        }
        final JsonNode java = MAPPER.readTree(w.toString());
        final JsonNode go = MAPPER.readTree(Files.readString(protocol("sample.jsonl"))).get("sample");
        final Set<String> javaKeys = keys(java, "");
        javaKeys.removeAll(JAVA_ONLY_SAMPLE_KEYS);
        assertEquals(keys(go, ""), javaKeys, "the Go sample's keys against those Main.sampleFields writes");
    }

    @Test
    void writesTheGoRestore() throws Exception {
        final RestoreTimes rt = new RestoreTimes();
        rt.add(7, 9);
        rt.add(8, 10);
        final StringWriter w = new StringWriter();
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(w)) {
            g.writeStartObject();
            rt.write(g, 19, 11);
            g.writeEndObject();
        }
        final JsonNode java = MAPPER.readTree(w.toString()).get("restore");
        final JsonNode go = MAPPER.readTree(Files.readString(protocol("restore.json")));
        assertEquals(keys(go, ""), keys(java, ""), "the Go summary's restore keys against those RestoreTimes.write writes");
        assertEquals(go.get("durations_ns"), java.get("durations_ns"), "each restore's duration, in the order they ended");
        assertEquals(go.get("records_each"), java.get("records_each"), "each restore's records, beside its duration");
    }

    /** n's keys, nested objects' as parent.key, except live_natives' (a map by kind). */
    private static Set<String> keys(final JsonNode n, final String prefix) {
        final Set<String> out = new TreeSet<>();
        for (final Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext();) {
            final Map.Entry<String, JsonNode> e = it.next();
            out.add(prefix + e.getKey());
            if (e.getValue().isObject() && !e.getKey().equals("live_natives")) {
                out.addAll(keys(e.getValue(), prefix + e.getKey() + "."));
            }
        }
        return out;
    }
}
