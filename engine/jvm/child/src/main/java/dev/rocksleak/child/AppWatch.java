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
    private final AppRun run;
    private final AppJob app;
    private final Thread thread;
    private final Thread hook;
    private volatile boolean stopped;
    private final long pageSize;

    AppWatch(final AppRun run, final AppJob app) {
        this.run = run;
        this.app = app;
        this.thread = new Thread(this::watch, "rocksleak-app-watch");
        this.thread.setDaemon(true);
        this.hook = new Thread(this::exiting, "rocksleak-app-exit");
        this.pageSize = 4096;
    }

    void start() {
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
            if (app.maxRss > 0 && rss > app.maxRss) {
                end(String.format("runaway allocation: the child's RSS %d B crossed app.max_rss %d B; the main "
                    + "thread is at %s", rss, app.maxRss, frames(run.mainThread().getStackTrace())));
            }
        }
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
            return "the application's frames: " + String.join(" <- ", app);
        }
        final List<String> top = new ArrayList<>();
        for (int i = 0; i < Math.min(3, stack.length); i++) {
            top.add(stack[i].toString());
        }
        return "no frame of the application's classes (first frames: " + String.join(" <- ", top) + ")";
    }
}
