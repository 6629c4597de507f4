package dev.rocksleak.child;

/**
 * Reads the two figures the sampler takes from Native Memory Tracking's summary (the text of
 * {@code jcmd <pid> VM.native_memory summary}, which the sampler gets through the DiagnosticCommand MBean): the
 * committed KB of the categories "Java Heap", "Class", "Metaspace" and "Code", summed, and the first "malloc:" total
 * (the report's Total block: the JVM's own malloc'd KB).
 *
 * <p>By hand, line by line, with what the regular expressions it replaces matched and nothing else:
 * {@code ^-\s+(Java Heap|Class|Metaspace|Code) \(reserved=(\d+)KB, committed=(\d+)KB\)} (every match; group 3
 * summed) and {@code ^\s+malloc: (\d+)KB} (the first match). NmtSummaryTest holds it to those expressions on a
 * real report and on this JVM's own.
 */
final class NmtSummary {
    private static final String[] CATEGORIES = {"Java Heap", "Class", "Metaspace", "Code"};

    /** The categories' committed KB, summed; -1 when none of them is in the text (NMT is off). */
    final long committedKb;
    /** The first "malloc:" total in KB; -1 when there is none. */
    final long mallocKb;

    private NmtSummary(final long committedKb, final long mallocKb) {
        this.committedKb = committedKb;
        this.mallocKb = mallocKb;
    }

    /** Parses a summary report; text without the categories (e.g. "Native memory tracking is not enabled") gives -1s. */
    static NmtSummary parse(final String s) {
        long kb = 0;
        int found = 0;
        long malloc = -1;
        final int n = s.length();
        for (int start = 0; start < n; ) {
            int end = s.indexOf('\n', start);
            if (end < 0) {
                end = n;
            }
            if (s.charAt(start) == '-') {
                final long c = category(s, start + 1, end);
                if (c >= 0) {
                    kb += c;
                    found++;
                }
            } else if (malloc < 0 && isSpace(s.charAt(start))) {
                malloc = mallocTotal(s, start, end);
            }
            start = end + 1;
        }
        return new NmtSummary(found == 0 ? -1 : kb, malloc);
    }

    /** A category line's committed KB ("-   Name (reserved=NKB, committed=NKB)"), from after its '-'; else -1. */
    private static long category(final String s, final int from, final int end) {
        int i = from;
        while (i < end && isSpace(s.charAt(i))) {
            i++;
        }
        if (i == from) {
            return -1;
        }
        for (final String name : CATEGORIES) {
            if (s.startsWith(name, i) && s.startsWith(" (reserved=", i + name.length())) {
                final int r = i + name.length() + " (reserved=".length();
                final int rEnd = digits(s, r, end);
                if (rEnd == r || !s.startsWith("KB, committed=", rEnd)) {
                    return -1;
                }
                final int c = rEnd + "KB, committed=".length();
                final int cEnd = digits(s, c, end);
                if (cEnd == c || !s.startsWith("KB)", cEnd)) {
                    return -1;
                }
                return Long.parseLong(s, c, cEnd, 10);
            }
        }
        return -1;
    }

    /** A "   malloc: NKB" line's N, from the line's start; else -1. */
    private static long mallocTotal(final String s, final int from, final int end) {
        int i = from;
        while (i < end && isSpace(s.charAt(i))) {
            i++;
        }
        if (!s.startsWith("malloc: ", i)) {
            return -1;
        }
        final int d = i + "malloc: ".length();
        final int dEnd = digits(s, d, end);
        if (dEnd == d || !s.startsWith("KB", dEnd)) {
            return -1;
        }
        return Long.parseLong(s, d, dEnd, 10);
    }

    private static int digits(final String s, final int from, final int end) {
        int i = from;
        while (i < end && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    /** Whitespace within a line, as \s is there (the line's own end is not in it). */
    private static boolean isSpace(final char c) {
        return c == ' ' || c == '\t' || c == '\u000B' || c == '\f' || c == '\r';
    }
}
