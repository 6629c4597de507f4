package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The Java port of workload.RecordValue against the Go side's known answers (workload/testdata/values.json). */
class RecordValueTest {
    static Path repo() {
        return Path.of(System.getProperty("rocksleak.repo", "../../..")).toAbsolutePath().normalize();
    }

    @Test
    void matchesTheGoKnownAnswers() throws Exception {
        final Path f = repo().resolve("workload/testdata/values.json");
        final JsonNode cases = new ObjectMapper().readTree(Files.readString(f));
        assertTrue(cases.size() > 0, f + " has no cases");
        for (final JsonNode c : cases) {
            // seed is a uint64 in the vectors: it wraps into a long as Go's uint64 does
            final long seed = c.get("seed").bigIntegerValue().longValue();
            final byte[] got = RecordValue.of(seed, c.get("value_bytes").asInt(), c.get("task").asInt(),
                c.get("store").asInt(), c.get("key").asText(), c.get("ts").asLong(), c.get("ver").asLong());
            assertEquals(c.get("hex").asText(), HexFormat.of().formatHex(got), "case " + c);
        }
    }
}
