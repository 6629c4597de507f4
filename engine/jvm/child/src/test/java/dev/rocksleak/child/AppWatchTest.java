package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** AppWatch's words for where the user's code was: its frames only, and for a runaway, where the RSS grew. */
class AppWatchTest {
    private static StackTraceElement frame(final String loader, final String cls, final String method, final int line) {
        return new StackTraceElement(loader, null, null, cls, method, cls.substring(cls.lastIndexOf('.') + 1) + ".java", line);
    }

    private static final StackTraceElement[] IN_APP = {
        frame(null, "jdk.internal.misc.Unsafe", "setMemory0", -2),
        frame(AppRun.LOADER, "com.example.App", "misbehave", 51),
        frame(AppRun.LOADER, "com.example.App", "pipe", 31),
        frame("app", "dev.rocksleak.child.AppRun", "lifecycle", 265),
    };

    private static final StackTraceElement[] IN_KAFKA = {
        frame("app", "org.apache.kafka.streams.TopologyTestDriver", "close", 1300),
        frame("app", "dev.rocksleak.child.AppRun", "lifecycle", 283),
    };

    @Test
    void framesAreTheApplicationsOnly() {
        assertEquals("the application's frames: com.example.App.misbehave(App.java:51) <- com.example.App.pipe(App.java:31)",
            AppWatch.frames(IN_APP));
        final String none = AppWatch.frames(IN_KAFKA);
        assertTrue(none.startsWith("no frame of the application's classes (first frames: ") && none.contains("org.apache.kafka.streams.TopologyTestDriver.close"), none);
    }

    @Test
    void aRunawayInTheApplicationNamesItsFramesNow() {
        final String w = AppWatch.runawayWhere(AppWatch.frames(IN_APP), "the application's frames: other.Where(W.java:1)", 1 << 26);
        assertEquals("the main thread is at " + AppWatch.frames(IN_APP), w);
    }

    @Test
    void aRunawaySeenAfterItNamesWhereTheRssGrew() {
        final String grew = AppWatch.frames(IN_APP);
        final String w = AppWatch.runawayWhere(AppWatch.frames(IN_KAFKA), grew, 67_108_864);
        assertTrue(w.startsWith("the main thread is now outside the application's code (no frame of the application's classes"), w);
        assertTrue(w.endsWith("where the RSS grew most (67108864 B in one 50 ms watch) it was at " + grew), w);
        final String after = w.substring(w.indexOf("the application's frames: "));
        assertEquals(grew, after.substring(after.length() - grew.length()));
        assertFalse(after.contains("org.apache.kafka"), after);
    }

    @Test
    void aRunawayWithNoGrowthSeenSaysSo() {
        final String w = AppWatch.runawayWhere(AppWatch.frames(IN_KAFKA), null, 0);
        assertEquals("the main thread is at " + AppWatch.frames(IN_KAFKA), w);
    }
}
