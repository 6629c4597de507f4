package rocksleak.kafkatests;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs Kafka's own test classes (from a kafka-streams test jar) in this JVM, against whatever kafka-streams main jar
 * and rocksdbjni are on the classpath, and records each test method's outcome; then prints the outcomes of several
 * runs side by side.
 *
 * <p>{@code KafkaTests run <label> <out.tsv> <class>...}: one JUnit Platform launch of the named classes; writes one
 * line per test method, {@code label, class, method, outcome, message}, outcome one of {@code pass}, {@code FAIL},
 * {@code aborted}, {@code skipped}, or {@code class-load} (the class could not be loaded or linked: the message names
 * the error). Exit status 0 whatever the outcomes (they are the finding), 2 on bad arguments.
 *
 * <p>{@code KafkaTests table <out.tsv>...}: a Markdown table, one row per class#method, one column per label, and the
 * failure messages below it. Exit status 0.
 */
public final class KafkaTests {
    record Outcome(String label, String cls, String method, String outcome, String message) {
        String line() {
            return String.join("\t", label, cls, method, outcome, message.replaceAll("[\t\r\n]+", " "));
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length >= 3 && args[0].equals("run")) {
            run(args[1], Path.of(args[2]), List.of(args).subList(3, args.length));
        } else if (args.length >= 2 && args[0].equals("table")) {
            List<Path> files = new ArrayList<>();
            for (int i = 1; i < args.length; i++) {
                files.add(Path.of(args[i]));
            }
            System.out.print(table(files));
        } else {
            System.err.println("usage: KafkaTests run <label> <out.tsv> <class>... | KafkaTests table <out.tsv>...");
            System.exit(2);
        }
    }

    static void run(String label, Path out, List<String> classes) throws IOException {
        List<Outcome> outcomes = new ArrayList<>();
        List<Class<?>> loadable = new ArrayList<>();
        for (String name : classes) {
            try {
                Class<?> c = Class.forName(name, true, KafkaTests.class.getClassLoader());
                c.getDeclaredMethods(); // resolves the signatures' types: a missing type is a linkage error here
                loadable.add(c);
            } catch (ClassNotFoundException | LinkageError e) {
                outcomes.add(new Outcome(label, simple(name), "*", "class-load", e.toString()));
            }
        }
        if (!loadable.isEmpty()) {
            LauncherDiscoveryRequestBuilder req = LauncherDiscoveryRequestBuilder.request();
            for (Class<?> c : loadable) {
                req.selectors(selectClass(c));
            }
            LauncherDiscoveryRequest request = req.build();
            Launcher launcher = LauncherFactory.create();
            launcher.execute(request, new TestExecutionListener() {
                @Override
                public void executionSkipped(TestIdentifier id, String reason) {
                    method(id).ifPresent(m -> outcomes.add(new Outcome(label, m[0], m[1], "skipped", reason)));
                }

                @Override
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                    Optional<String[]> m = method(id);
                    String message = result.getThrowable().map(KafkaTests::describe).orElse("");
                    if (m.isPresent()) {
                        String outcome = switch (result.getStatus()) {
                            case SUCCESSFUL -> "pass";
                            case FAILED -> "FAIL";
                            case ABORTED -> "aborted";
                        };
                        outcomes.add(new Outcome(label, m.get()[0], m.get()[1], outcome, message));
                    } else if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL && id.isContainer()) {
                        outcomes.add(new Outcome(label, id.getDisplayName(), "(container)", "FAIL", message));
                    }
                }
            });
        }
        List<String> lines = new ArrayList<>();
        for (Outcome o : outcomes) {
            lines.add(o.line());
        }
        Files.write(out, lines);
        for (Outcome o : outcomes) {
            System.err.printf("%s %s.%s: %s %s%n", o.label, o.cls, o.method, o.outcome, o.message);
        }
    }

    static Optional<String[]> method(TestIdentifier id) {
        return id.getSource()
            .filter(s -> s instanceof MethodSource)
            .map(s -> (MethodSource) s)
            .map(s -> new String[] {simple(s.getClassName()), s.getMethodName()});
    }

    static String simple(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** The throwable's class and message, and its cause's, on one line. */
    static String describe(Throwable t) {
        StringBuilder b = new StringBuilder(t.getClass().getName());
        if (t.getMessage() != null) {
            b.append(": ").append(t.getMessage());
        }
        if (t.getCause() != null && t.getCause() != t) {
            b.append(" (cause: ").append(describe(t.getCause())).append(')');
        }
        return b.toString();
    }

    static String table(List<Path> files) throws IOException {
        LinkedHashSet<String> labels = new LinkedHashSet<>();
        Map<String, Map<String, String[]>> cells = new LinkedHashMap<>();
        for (Path f : files) {
            for (String line : Files.readAllLines(f)) {
                String[] c = line.split("\t", -1);
                if (c.length != 5) {
                    throw new IllegalArgumentException(f + ": malformed line: " + line);
                }
                labels.add(c[0]);
                cells.computeIfAbsent(c[1] + "." + c[2], k -> new LinkedHashMap<>()).put(c[0], new String[] {c[3], c[4]});
            }
        }
        StringBuilder b = new StringBuilder("| Kafka test class.method |");
        for (String l : labels) {
            b.append(' ').append(l).append(" |");
        }
        b.append("\n|---|");
        b.append("---|".repeat(labels.size())).append('\n');
        List<String> notes = new ArrayList<>();
        for (Map.Entry<String, Map<String, String[]>> row : cells.entrySet()) {
            b.append("| ").append(row.getKey()).append(" |");
            for (String l : labels) {
                String[] cell = row.getValue().get(l);
                if (cell == null) {
                    b.append(" — |");
                } else if (cell[1].isEmpty()) {
                    b.append(' ').append(cell[0]).append(" |");
                } else {
                    notes.add(cell[1]);
                    b.append(' ').append(cell[0]).append(" [").append(notes.size()).append("] |");
                }
            }
            b.append('\n');
        }
        for (int i = 0; i < notes.size(); i++) {
            b.append("\n[").append(i + 1).append("] ").append(notes.get(i));
        }
        return b.append('\n').toString();
    }
}
