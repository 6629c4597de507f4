package dev.rocksleak.child;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Contains the user's code while an app runs (AppRun): a daemon thread that ends the run when a step (the user's
 * pipe, the punctuators the driver's wall clock fires, a driver's close) runs longer than {@code hang_after_ms}, or
 * when the process's RSS crosses {@code max_rss}; and a shutdown hook that ends it when the user's code calls
 * {@code System.exit} (or {@code Runtime.exit}). Each writes the run's summary with an error naming where the main
 * thread (or the exiting thread) was, in the application's frames, and halts the JVM with status 1. The samples
 * already sent stay: the result is marked, not lost.
 */
final class AppWatch {
    private static final long PERIOD_MS = 50;
    /** A growth of the RSS in one watch period above which the watch reads where the main thread is (16 MiB). */
    private static final long GROWTH_SEEN = 16L << 20;
    private static final String APP_FRAMES = "the application's frames: ";
    private final AppRun run;
    private final AppJob app;
    private final Thread thread;
    private final Thread hook;
    private volatile boolean stopped;
    private final long pageSize;
    /** The RSS at the last watch, and the application's frames seen on the main thread where it grew most in one. */
    private long lastRss;
    private long grewMost;
    private String grewAt;

    AppWatch(final AppRun run, final AppJob app) {
        this.run = run;
        this.app = app;
        this.thread = new Thread(this::watch, "rocksleak-app-watch");
        this.thread.setDaemon(true);
        this.hook = new Thread(this::exiting, "rocksleak-app-exit");
        this.pageSize = 4096;
    }

    void start() {
        lastRss = rss();
        Runtime.getRuntime().addShutdownHook(hook);
        thread.start();
    }

    /** The run ends on its own: the watch stops and an exit is the child's. */
    void stop() {
        stopped = true;
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (final IllegalStateException e) {
            // already shutting down: the hook runs and finds the run finished
        }
    }

    private void watch() {
        while (!stopped) {
            try {
                Thread.sleep(PERIOD_MS);
            } catch (final InterruptedException e) {
                return;
            }
            final long ns = run.stepRunningNs();
            if (ns > app.hangAfterMs * 1_000_000L) {
                end(String.format("the application hung: a step ran %.1f s, longer than app.hang_after (%d ms); "
                    + "the main thread is at %s", ns / 1e9, app.hangAfterMs, frames(run.mainThread().getStackTrace())));
            }
            final long rss = rss();
            if (app.maxRss > 0) {
                watchGrowth(rss);
                if (rss > app.maxRss) {
                    end("runaway allocation: the child's RSS " + rss + " B crossed app.max_rss " + app.maxRss
                        + " B; " + runawayWhere(frames(run.mainThread().getStackTrace()), grewAt, grewMost));
                }
            }
        }
    }

    /**
     * Where the RSS grew by more than {@link #GROWTH_SEEN} in one watch period, reads the main thread's stack, and keeps
     * its application's frames where the growth was the largest: a runaway allocation is seen after it, when the main
     * thread may have left the application's code (a sample, a driver's close), so its frames at the crossing alone
     * may name none.
     */
    private void watchGrowth(final long rss) {
        final long grew = rss - lastRss;
        lastRss = rss;
        if (grew > GROWTH_SEEN && grew > grewMost) {
            final String at = frames(run.mainThread().getStackTrace());
            if (at.startsWith(APP_FRAMES)) {
                grewMost = grew;
                grewAt = at;
            }
        }
    }

    /**
     * Where a runaway allocation was: the main thread's frames at the crossing ({@code now}, as {@link #frames} words
     * them) when they are the application's or when no growth was seen in its frames ({@code grewAt} null); else
     * that the main thread has left the application's code, then the application's frames where the RSS grew most
     * ({@code grewMost} B in one watch period), so the words after the first "the application's frames: " are only
     * the application's.
     */
    static String runawayWhere(final String now, final String grewAt, final long grewMost) {
        if (now.startsWith(APP_FRAMES) || grewAt == null) {
            return "the main thread is at " + now;
        }
        return "the main thread is now outside the application's code (" + now + "); where the RSS grew most ("
            + grewMost + " B in one " + PERIOD_MS + " ms watch) it was at " + grewAt;
    }

    private void end(final String error) {
        if (run.fail(error)) {
            Runtime.getRuntime().halt(1);
        }
    }

    /** The shutdown hook: only an exit the run did not make reaches here while the hook is installed. */
    private void exiting() {
        for (final Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            for (final StackTraceElement f : e.getValue()) {
                if ((f.getClassName().equals("java.lang.Shutdown") || f.getClassName().equals("java.lang.Runtime"))
                    && f.getMethodName().equals("exit")) {
                    end("the application called System.exit (the JVM would have ended the task's process); thread "
                        + e.getKey().getName() + " is at " + frames(e.getValue()));
                    return;
                }
            }
        }
        end("the JVM is shutting down during the application's run (an exit from outside the main thread)");
    }

    private long rss() {
        try {
            final String[] statm = Files.readString(Path.of("/proc/self/statm")).trim().split(" ");
            return Long.parseLong(statm[1]) * pageSize;
        } catch (final IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The application's frames of a stack (those of classes the AppRun.LOADER class loader defined), innermost first, at most
     * eight; when there are none, the first three frames and that there are none.
     */
    static String frames(final StackTraceElement[] stack) {
        final List<String> app = new ArrayList<>();
        for (final StackTraceElement f : stack) {
            if (AppRun.LOADER.equals(f.getClassLoaderName()) && app.size() < 8) {
                app.add(f.getClassName() + "." + f.getMethodName() + "(" + f.getFileName() + ":" + f.getLineNumber()
                    + ")");
            }
        }
        if (!app.isEmpty()) {
            return APP_FRAMES + String.join(" <- ", app);
        }
        final List<String> top = new ArrayList<>();
        for (int i = 0; i < Math.min(3, stack.length); i++) {
            top.add(stack[i].toString());
        }
        return "no frame of the application's classes (first frames: " + String.join(" <- ", top) + ")";
    }
}
