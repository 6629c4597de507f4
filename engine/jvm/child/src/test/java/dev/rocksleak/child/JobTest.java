package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Bad input names the field; Go durations parse. */
class JobTest {
    static final String SCENARIO = "{\"name\":\"t\",\"store\":\"kv\",\"tasks\":1,\"stores_per_task\":1,"
        + "\"retention_ms\":120000,\"restore_batch_records\":1000,\"value_bytes\":16,\"key_spread\":10,"
        + "\"changelog_partitions\":1,\"exactly_once\":true,\"lifecycles\":10,\"duration\":\"0s\","
        + "\"sample_every_lifecycles\":1,\"sample_interval_ms\":250}";

    @Test
    void parsesAJob() throws Exception {
        final Job j = Job.parse(new ObjectMapper().readTree("{\"scenario\":" + SCENARIO
            + ",\"model\":\"kafka-4.3.0\",\"seed\":3,\"state_dir\":\"/tmp/x\",\"ops\":1,\"kafka_version\":\"4.3.0\"}"));
        assertEquals("kafka-4.3.0", j.model);
        assertEquals("glibc", j.allocator);
        assertEquals(60_000, j.segmentInterval());
    }

    @Test
    void namesTheBadField() throws Exception {
        final Job.BadInput e = assertThrows(Job.BadInput.class, () -> Job.parse(new ObjectMapper().readTree(
            "{\"scenario\":" + SCENARIO.replace("\"tasks\":1", "\"tasks\":0")
                + ",\"model\":\"m\",\"seed\":1,\"state_dir\":\"/tmp/x\"}")));
        assertTrue(e.getMessage().contains("scenario.tasks"), e.getMessage());
        final Job.BadInput e2 = assertThrows(Job.BadInput.class, () -> Job.parse(new ObjectMapper().readTree(
            "{\"scenario\":" + SCENARIO + ",\"model\":\"m\",\"seed\":1}")));
        assertTrue(e2.getMessage().contains("state_dir"), e2.getMessage());
        final Job.BadInput e3 = assertThrows(Job.BadInput.class, () -> Job.parse(new ObjectMapper().readTree(
            "{\"scenario\":" + SCENARIO + ",\"model\":\"m\",\"seed\":1,\"state_dir\":\"/tmp/x\",\"disk_full\":{}}")));
        assertTrue(e3.getMessage().contains("disk_full.attempts"), e3.getMessage());
    }

    @Test
    void readsTheDiskFullAttempts() throws Exception {
        final Job j = Job.parse(new ObjectMapper().readTree("{\"scenario\":" + SCENARIO
            + ",\"model\":\"kafka-4.3.0\",\"seed\":3,\"state_dir\":\"/tmp/x\",\"disk_full\":{\"attempts\":7}}"));
        assertEquals(7, j.diskFullAttempts);
        assertEquals(0, Job.parse(new ObjectMapper().readTree("{\"scenario\":" + SCENARIO
            + ",\"model\":\"m\",\"seed\":3,\"state_dir\":\"/tmp/x\"}")).diskFullAttempts);
    }

    @Test
    void parsesGoDurations() throws Exception {
        assertEquals(90_000_000_000L, Job.parseGoDuration("1m30s", "d"));
        assertEquals(250_000_000L, Job.parseGoDuration("250ms", "d"));
        assertEquals(1_500_000_000L, Job.parseGoDuration("1.5s", "d"));
        assertThrows(Job.BadInput.class, () -> Job.parseGoDuration("3 days", "d"));
    }
}
