package dev.rocksleak.child;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import one.profiler.AsyncProfiler;

/**
 * rocksleak run --profile on the JVM engine: async-profiler's nativemem mode (every free, and the mallocs it samples,
 * with their mixed Java and native stacks) recorded from the end of the warm-up to the end of the run, as the Go
 * engine's heap dumps are taken (harness.Profile). The parent loads libasyncProfiler.so with -agentpath and puts
 * async-profiler.jar on the classpath only when it profiles (harness.JVMProfiler): this class is loaded only then.
 *
 * <p>It writes {@code <dir>/nativemem.jfr} (the recording, at stop) and {@code <dir>/nativemem.json}: the lifecycle
 * and failed-close counts, the native heap and the elapsed time at start and at stop (harness.NativeMemMarks).
 */
final class NativeMemProfile {
    /** The recording's file name in the profile's folder. */
    static final String RECORDING = "nativemem.jfr";
    /** The marks' file name in the profile's folder. */
    static final String MARKS = "nativemem.json";

    private final Job.Profile job;
    private final ObjectMapper mapper;
    private ObjectNode start;
    private boolean stopped;

    NativeMemProfile(final Job.Profile job, final ObjectMapper mapper) {
        this.job = job;
        this.mapper = mapper;
    }

    /**
     * Called at every sample: starts the recording at the first sample where the warm-up is reached (the lifecycle
     * count, or the elapsed time), stops it at the end sample ({@code end}) when it was started.
     */
    void atSample(final boolean end, final long lifecycles, final long failedCloses, final long nativeHeap,
                  final long elapsedNs) throws IOException {
        if (stopped) {
            return;
        }
        if (start == null) {
            final boolean warm = (job.warmLifecycles > 0 && lifecycles >= job.warmLifecycles)
                || (job.warmAfterNs > 0 && elapsedNs >= job.warmAfterNs);
            if (!warm || end) {
                return;
            }
            Files.createDirectories(Path.of(job.dir));
            final String cmd = "start,event=nativemem,nativemem=" + job.intervalBytes + ",file="
                + Path.of(job.dir, RECORDING);
            AsyncProfiler.getInstance().execute(cmd);
            start = mark(lifecycles, failedCloses, nativeHeap, elapsedNs);
            return;
        }
        if (!end) {
            return;
        }
        AsyncProfiler.getInstance().execute("stop");
        stopped = true;
        final ObjectNode m = mapper.createObjectNode();
        m.put("interval_bytes", job.intervalBytes);
        m.set("start", start);
        m.set("stop", mark(lifecycles, failedCloses, nativeHeap, elapsedNs));
        Files.write(Path.of(job.dir, MARKS), mapper.writeValueAsBytes(m));
    }

    private ObjectNode mark(final long lifecycles, final long failedCloses, final long nativeHeap,
                            final long elapsedNs) {
        final ObjectNode n = mapper.createObjectNode();
        n.put("lifecycles", lifecycles);
        n.put("failed_closes", failedCloses);
        n.put("native_heap", nativeHeap);
        n.put("elapsed_ns", elapsedNs);
        return n;
    }
}
