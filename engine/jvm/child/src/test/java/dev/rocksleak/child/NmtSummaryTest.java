package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

/**
 * NmtSummary against the regular expressions the sampler parsed NMT's summary with before it (kept here as the
 * reference): on a real JDK 17 report (nmt/summary-jdk17.txt, `java -XX:NativeMemoryTracking=summary` asked through
 * the DiagnosticCommand MBean), on this JVM's own report (surefire starts it with NMT on) and on NMT off.
 */
class NmtSummaryTest {
    private static final Pattern NMT = Pattern.compile(
        "^-\\s+(Java Heap|Class|Metaspace|Code) \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)", Pattern.MULTILINE);
    private static final Pattern NMT_MALLOC = Pattern.compile("^\\s+malloc: (\\d+)KB", Pattern.MULTILINE);

    /** The reference: {committed KB summed or -1, malloc KB or -1}. */
    private static long[] byRegex(final String out) {
        final Matcher m = NMT.matcher(out);
        long kb = 0;
        int found = 0;
        while (m.find()) {
            kb += Long.parseLong(m.group(3));
            found++;
        }
        final Matcher mm = NMT_MALLOC.matcher(out);
        return new long[] {found == 0 ? -1 : kb, mm.find() ? Long.parseLong(mm.group(1)) : -1};
    }

    private static void sameAsRegex(final String out, final String what) {
        final NmtSummary s = NmtSummary.parse(out);
        final long[] want = byRegex(out);
        assertEquals(want[0], s.committedKb, what + ": committed KB");
        assertEquals(want[1], s.mallocKb, what + ": malloc KB");
    }

    @Test
    void aRealReport() throws IOException {
        final String out;
        try (InputStream in = getClass().getResourceAsStream("/nmt/summary-jdk17.txt")) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        // Java Heap 397312 + Class 527 + Code 7638 + Metaspace 2699 (not "Shared class space", not the malloc= lines)
        assertEquals(408176, NmtSummary.parse(out).committedKb);
        assertEquals(9517, NmtSummary.parse(out).mallocKb);
        sameAsRegex(out, "nmt/summary-jdk17.txt");
    }

    @Test
    void thisJvmsOwnReport() throws Exception {
        for (int i = 0; i < 3; i++) {
            final String out = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            assertTrue(NmtSummary.parse(out).committedKb > 0, "NMT on in the test JVM: " + out);
            sameAsRegex(out, "this JVM's report #" + i);
        }
    }

    @Test
    void offAndOddLines() {
        sameAsRegex("Native memory tracking is not enabled\n", "NMT off");
        assertEquals(-1, NmtSummary.parse("Native memory tracking is not enabled\n").committedKb);
        final String odd = "-Class (reserved=1KB, committed=1KB)\n" // no space after '-'
            + "-   Class (reserved=2KB, committed=xKB)\n" // no digits
            + "-   Classes (reserved=3KB, committed=3KB)\n" // another name
            + "  -   Code (reserved=4KB, committed=4KB)\n" // not at the line's start
            + "-   Code (reserved=5KB, committed=5KB)\n"
            + "   (malloc=6KB #1)\n"
            + "malloc: 7KB\n" // no indent
            + "\t malloc: 8KB #2\n"
            + "   malloc: 9KB\n"
            + "-\tMetaspace (reserved=10KB, committed=10KB)";
        assertEquals(15, NmtSummary.parse(odd).committedKb);
        assertEquals(8, NmtSummary.parse(odd).mallocKb);
        sameAsRegex(odd, "odd lines");
    }
}
