package dev.rocksleak.child;

import com.fasterxml.jackson.databind.JsonNode;

/** An op's fields read as the executor reads them: a missing or mistyped field is bad input naming the field. */
final class OpFields {
    private OpFields() {
    }

    /** The op's integer field f. */
    static long num(final JsonNode op, final String f) throws Job.BadInput {
        final JsonNode v = op.get(f);
        if (v == null || !v.isIntegralNumber()) {
            throw new Job.BadInput("op " + op.path("op").asText() + ": " + f + ": missing or not an integer");
        }
        return v.asLong();
    }

    /** The op's string field f. */
    static String text(final JsonNode op, final String f) throws Job.BadInput {
        final JsonNode v = op.get(f);
        if (v == null || !v.isTextual()) {
            throw new Job.BadInput("op " + op.path("op").asText() + ": " + f + ": missing or not a string");
        }
        return v.asText();
    }
}
