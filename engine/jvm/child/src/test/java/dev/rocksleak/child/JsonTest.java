package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Events leave as whole JSON lines, one write each (the parent wakes once per event). */
class JsonTest {
    @Test
    void oneWritePerLine() throws IOException {
        final List<String> writes = new ArrayList<>();
        final OutputStream out = new OutputStream() {
            @Override
            public void write(final int b) {
                writes.add(String.valueOf((char) b));
            }

            @Override
            public void write(final byte[] b, final int off, final int len) {
                writes.add(new String(b, off, len, StandardCharsets.UTF_8));
            }
        };
        try (Json j = new Json(out)) {
            j.begin("info").writeNumberField("pid", 7);
            j.end();
            j.begin("sample").writeStringField("model", "kafka-4.3.1");
            j.end();
        }
        assertEquals(List.of("{\"info\":{\"pid\":7}}\n", "{\"sample\":{\"model\":\"kafka-4.3.1\"}}\n"), writes);
    }
}
