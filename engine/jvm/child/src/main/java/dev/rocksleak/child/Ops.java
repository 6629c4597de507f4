package dev.rocksleak.child;

import java.util.Iterator;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The op stream's fields by kind (the Go workload.Op's JSON line, workload/op.go AppendJSON): the keys the JVM
 * child's Executor reads from each kind of op. An op of an unknown kind or with a key not listed here is bad input
 * (check), so a field the Go side adds to the stream stops the child instead of being skipped; ProtocolTest checks
 * these sets against the Go side's golden op stream (harness/testdata/protocol/ops.jsonl).
 */
final class Ops {
    private Ops() {
    }

    static final Map<String, Set<String>> KEYS = Map.ofEntries(
        Map.entry("step", Set.of("op", "step", "stream_time")),
        Map.entry("seed_old", Set.of("op", "task", "store")),
        Map.entry("open", Set.of("op", "task", "store", "stream_time", "init_failures")),
        Map.entry("get", Set.of("op", "task", "store", "key", "ts")),
        Map.entry("range", Set.of("op", "task", "store")),
        Map.entry("put", Set.of("op", "task", "store", "key", "ts", "ver", "init_failures")),
        Map.entry("commit", Set.of("op", "task")),
        Map.entry("arm", Set.of("op", "task", "store", "fault")),
        Map.entry("close", Set.of("op", "task", "store")),
        Map.entry("rebalance", Set.of("op", "tasks")),
        Map.entry("sample_point", Set.of("op")),
        Map.entry("end", Set.of("op")));

    /** Checks that op is an object of a known kind whose keys are that kind's; the error names the key. */
    static void check(final JsonNode op) throws Job.BadInput {
        if (op == null || !op.isObject()) {
            throw new Job.BadInput("op: not a JSON object: " + op);
        }
        final String kind = op.path("op").asText("");
        final Set<String> keys = KEYS.get(kind);
        if (keys == null) {
            throw new Job.BadInput("op: unknown kind \"" + kind + "\" in " + op);
        }
        for (final Iterator<String> it = op.fieldNames(); it.hasNext();) {
            final String k = it.next();
            if (!keys.contains(k)) {
                throw new Job.BadInput("op " + kind + ": unknown field \"" + k + "\" (the JVM child reads "
                    + String.join(", ", new java.util.TreeSet<>(keys)) + ")");
            }
        }
    }
}
