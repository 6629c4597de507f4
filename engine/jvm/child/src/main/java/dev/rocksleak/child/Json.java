package dev.rocksleak.child;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/** Writes the child's events (harness.Event) as JSON lines, flushed per line, one write(2) each. */
final class Json implements AutoCloseable {
    private final OutputStream out;
    private final JsonGenerator g;

    Json(final OutputStream out) throws IOException {
        this.out = out;
        this.g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
        g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        g.setRootValueSeparator(null); // one object per line, nothing between
    }

    JsonGenerator begin(final String event) throws IOException {
        g.writeStartObject();
        g.writeFieldName(event);
        g.writeStartObject();
        return g;
    }

    void end() throws IOException {
        g.writeEndObject();
        g.writeEndObject();
        g.writeRaw('\n'); // in the generator's buffer: the line leaves in one write
        g.flush();
    }

    static void map(final JsonGenerator g, final String name, final Map<String, Long> m) throws IOException {
        g.writeObjectFieldStart(name);
        for (final Map.Entry<String, Long> e : m.entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
    }

    @Override
    public void close() throws IOException {
        g.close();
        out.close();
    }
}
