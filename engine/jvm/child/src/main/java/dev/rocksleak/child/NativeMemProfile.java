package dev.rocksleak.child;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import one.profiler.AsyncProfiler;

/**
 * rocksleak run --profile on the JVM engine: async-profiler's nativemem mode (every free, and the mallocs it samples,
 * with their mixed Java and native stacks) recorded from the end of the warm-up, as the Go engine's first heap dump
 * (harness.Profile), until the run has closed every store. The parent loads libasyncProfiler.so with -agentpath and puts
 * async-profiler.jar on the classpath only when it profiles (engine/jvm, Engine.ProfileCommand): this class is loaded only then.
 *
 * <p>It writes {@code <dir>/nativemem.jfr} (the recording, at stop) and {@code <dir>/nativemem.json}: the lifecycle
 * and failed-close counts, the native heap and the elapsed time at start and at stop (engine/jvm's nativeMemMarks).
 */
final class NativeMemProfile {
    /** The recording's file name in the profile's folder. */
    static final String RECORDING = "nativemem.jfr";
    /** The marks' file name in the profile's folder. */
    static final String MARKS = "nativemem.json";

    private static NativeMemProfile instance; // the process's, once installed

    private final Job.Profile job;
    private final ObjectMapper mapper;
    private ObjectNode start;
    private long[] last = new long[4]; // the last sample's lifecycles, failed closes, native heap, elapsed time
    private boolean stopped;

    private NativeMemProfile(final Job.Profile job, final ObjectMapper mapper) {
        this.job = job;
        this.mapper = mapper;
    }

    /**
     * Installs the process's profile for a job with one ({@code job} non-null), whatever loop then runs it (the
     * store-operation loop of Main, or another): the loop calls {@link #sampled} at each sample and {@link #stopped}
     * once it closed every store; a loop that does not stop it is stopped at the JVM's exit (a shutdown hook, with
     * the last sample's counts).
     */
    static synchronized void install(final Job.Profile job, final ObjectMapper mapper) {
        if (job == null || instance != null) {
            return;
        }
        instance = new NativeMemProfile(job, mapper);
        final NativeMemProfile p = instance;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                p.stop(p.last[0], p.last[1], p.last[2], p.last[3]);
            } catch (final IOException | RuntimeException e) {
                System.err.println("rocksleak child: profile: " + e);
            }
        }, "rocksleak-profile-stop"));
    }

    /** At each sample (see {@link #atSample}); nothing when no profile is installed. */
    static void sampled(final boolean end, final long lifecycles, final long failedCloses, final long nativeHeap,
                        final long elapsedNs) throws IOException {
        final NativeMemProfile p;
        synchronized (NativeMemProfile.class) {
            p = instance;
        }
        if (p != null) {
            p.atSample(end, lifecycles, failedCloses, nativeHeap, elapsedNs);
        }
    }

    /** Once every store is closed (see {@link #stop}); nothing when no profile is installed. */
    static void stopped(final long lifecycles, final long failedCloses, final long nativeHeap, final long elapsedNs)
        throws IOException {
        final NativeMemProfile p;
        synchronized (NativeMemProfile.class) {
            p = instance;
        }
        if (p != null) {
            p.stop(lifecycles, failedCloses, nativeHeap, elapsedNs);
        }
    }

    /**
     * Called at every sample: starts the recording at the first sample where the warm-up is reached (the lifecycle
     * count, or the elapsed time), never at the end sample ({@code end}).
     */
    synchronized void atSample(final boolean end, final long lifecycles, final long failedCloses, final long nativeHeap,
                  final long elapsedNs) throws IOException {
        last = new long[] {lifecycles, failedCloses, nativeHeap, elapsedNs};
        if (start != null || stopped || end) {
            return;
        }
        final boolean warm = (job.warmLifecycles > 0 && lifecycles >= job.warmLifecycles)
            || (job.warmAfterNs > 0 && elapsedNs >= job.warmAfterNs);
        if (!warm) {
            return;
        }
        Files.createDirectories(Path.of(job.dir));
        // One JFR chunk for the whole recording (async-profiler starts a new one at 100 MB by default): jfrconv's leak
        // view sorts events by time within a chunk only, so a malloc flushed into a later chunk than its free (their
        // threads' buffers are written at different times) was read as never freed.
        final String cmd = "start,event=nativemem,nativemem=" + job.intervalBytes + ",chunksize=64g,file="
            + Path.of(job.dir, RECORDING);
        AsyncProfiler.getInstance().execute(cmd);
        start = mark(lifecycles, failedCloses, nativeHeap, elapsedNs);
    }

    /**
     * Stops the recording, when started, after the run closed every store: what the stores held is freed by then, so
     * an allocation of the recording still unfreed was leaked (or is the process's own, kept for its life).
     */
    synchronized void stop(final long lifecycles, final long failedCloses, final long nativeHeap, final long elapsedNs)
        throws IOException {
        if (start == null || stopped) {
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
