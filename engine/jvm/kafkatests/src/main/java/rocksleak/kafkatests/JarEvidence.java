package rocksleak.kafkatests;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.spi.ToolProvider;

/**
 * What one kafka-streams jar builds and releases for the offsets column family (KIP-1035), read from its bytecode with
 * the JDK's own {@code javap -c -p} (run in-process through {@link ToolProvider}; no class of the jar is loaded).
 *
 * <p>Contract: {@link #read(Path)} never loads Kafka's classes and never fails on a jar from before the offsets CF: it
 * answers {@code offsetsCf = false} and "n/a" for the rest. The readings are:
 * <ul>
 *   <li>{@code offsetsCf}: {@code RocksDBStore} loads the column-family name {@code "offsets"} ({@code ldc String
 *       offsets}).</li>
 *   <li>{@code offsetsOptions}: {@code field-closed} when {@code RocksDBStore} declares a field of type
 *       {@code org.rocksdb.ColumnFamilyOptions} and every method that closes the store's {@code WriteOptions}
 *       ({@code close()} and the open-failure cleanup) also calls {@code ColumnFamilyOptions.close()} on it;
 *       {@code field-unclosed} when such a field exists but one of those methods does not close it;
 *       {@code per-open-unclosed} when no such field exists (each open builds options nothing keeps) and
 *       {@code RocksDBStore} never calls {@code ColumnFamilyOptions.close()} ({@code per-open-closed} if it does).</li>
 *   <li>{@code offsetsSetters}: the {@code org/rocksdb/ColumnFamilyOptions.set*} calls in {@code RocksDBStore} (the data
 *       CF's setters go through Kafka's options adapter, so these are the offsets CF's).</li>
 *   <li>{@code noBlockCache}: {@code RocksDBStore} calls {@code BlockBasedTableConfig.setNoBlockCache}.</li>
 *   <li>{@code accessorCloseFinally}: every accessor's {@code close(DBAccessor)} ({@code AbstractColumnFamilyAccessor},
 *       {@code RocksDBStore$SingleColumnFamilyAccessor}, {@code DualColumnFamilyAccessor}) has an exception-table entry
 *       of type {@code any}, i.e. a {@code finally}.</li>
 *   <li>{@code restoreBatchClose}: see {@link #restoreBatchClose}.</li>
 * </ul>
 */
public final class JarEvidence {
    static final String PKG = "org.apache.kafka.streams.state.internals.";
    static final String STORE = PKG + "RocksDBStore";
    static final String[] ACCESSORS = {
        PKG + "AbstractColumnFamilyAccessor", PKG + "RocksDBStore$SingleColumnFamilyAccessor", PKG + "DualColumnFamilyAccessor"
    };

    public final boolean offsetsCf;
    public final String offsetsOptions;
    public final String offsetsSetters;
    public final String noBlockCache;
    public final String accessorCloseFinally;
    public final String restoreBatchClose;
    /** The javap lines each reading rests on, for the docs. */
    public final List<String> lines;

    private JarEvidence(boolean offsetsCf, String offsetsOptions, String offsetsSetters, String noBlockCache,
                        String accessorCloseFinally, String restoreBatchClose, List<String> lines) {
        this.offsetsCf = offsetsCf;
        this.offsetsOptions = offsetsOptions;
        this.offsetsSetters = offsetsSetters;
        this.noBlockCache = noBlockCache;
        this.accessorCloseFinally = accessorCloseFinally;
        this.restoreBatchClose = restoreBatchClose;
        this.lines = lines;
    }

    /**
     * {@code JarEvidence <kafka-streams.jar>...}: prints each jar's readings and the javap lines they rest on (the
     * evidence quoted in docs/kafka-versions.md). Exit status 2 on a jar that is not a kafka-streams jar.
     */
    public static void main(String[] args) {
        for (String a : args) {
            JarEvidence e;
            try {
                e = read(Path.of(a));
            } catch (IllegalArgumentException ex) {
                System.err.println(ex.getMessage());
                System.exit(2);
                return;
            }
            System.out.printf("== %s%noffsets_cf=%s offsets_options=%s offsets_setters=%s offsets_no_block_cache=%s accessor_close_finally=%s restore_batch_close=%s%n",
                Path.of(a).getFileName(), e.offsetsCf ? "yes" : "no", e.offsetsOptions, e.offsetsSetters, e.noBlockCache,
                e.accessorCloseFinally, e.restoreBatchClose);
            e.lines.forEach(l -> System.out.println("  " + l));
        }
    }

    /** Runs {@code javap -c -p} on the named classes of the jar; a class the jar lacks yields no text. */
    static String javap(Path jar, String... classes) {
        ToolProvider javap = ToolProvider.findFirst("javap")
            .orElseThrow(() -> new IllegalStateException("javap is not available in this JDK"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> args = new ArrayList<>(List.of("-c", "-p", "-cp", jar.toString()));
        args.addAll(List.of(classes));
        javap.run(new PrintWriter(out), new PrintWriter(err), args.toArray(new String[0]));
        return out.toString();
    }

    /** Splits javap output into methods: declaration line → body (up to the blank line), keyed "Class#declaration". */
    static Map<String, List<String>> methods(String javapText) {
        Map<String, List<String>> methods = new LinkedHashMap<>();
        String cls = "";
        List<String> body = null;
        for (String line : javapText.split("\n")) {
            if (line.startsWith("Compiled from")) {
                continue;
            }
            if (!line.startsWith(" ") && line.endsWith("{")) {
                cls = line;
                body = null;
            } else if (line.startsWith("  ") && !line.startsWith("   ") && line.trim().endsWith(";")) {
                body = new ArrayList<>();
                methods.put(cls + "#" + line.trim(), body);
            } else if (line.isBlank() || line.equals("}")) {
                body = null;
            } else if (body != null) {
                body.add(line);
            }
        }
        return methods;
    }

    /** Reads the evidence from a kafka-streams jar. */
    public static JarEvidence read(Path jar) {
        List<String> lines = new ArrayList<>();
        String store = javap(jar, STORE);
        if (store.isEmpty()) {
            throw new IllegalArgumentException(jar + ": no class " + STORE);
        }
        boolean offsetsCf = false;
        for (String l : store.split("\n")) {
            if (l.matches(".*// String offsets$")) {
                offsetsCf = true;
                lines.add("RocksDBStore: " + l.trim());
            }
        }
        String restore = restoreBatchClose(jar, lines);
        if (!offsetsCf) {
            return new JarEvidence(false, "none", "n/a", "n/a", "n/a", restore, lines);
        }
        String optionsField = null;
        for (String l : store.split("\n")) {
            if (l.matches("^  (private |protected |public )?(static )?org\\.rocksdb\\.ColumnFamilyOptions \\w+;$")) {
                optionsField = l.trim().replaceAll(".* (\\w+);$", "$1");
                lines.add("RocksDBStore: " + l.trim());
            }
        }
        Map<String, List<String>> storeMethods = methods(store);
        TreeSet<String> setters = new TreeSet<>();
        boolean noBlockCache = false;
        // Methods that close the store's WriteOptions (close() and the open-failure cleanup) must close the field too.
        Map<String, Boolean> closedIn = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> m : storeMethods.entrySet()) {
            String decl = m.getKey().substring(m.getKey().indexOf('#') + 1);
            List<String> body = m.getValue();
            for (int i = 0; i < body.size(); i++) {
                String l = body.get(i);
                if (l.contains("Method org/rocksdb/ColumnFamilyOptions.set")) {
                    setters.add(l.replaceAll(".*ColumnFamilyOptions\\.(set\\w+):.*", "$1"));
                    lines.add("RocksDBStore." + shortName(decl) + ": " + l.trim());
                }
                if (l.contains("ColumnFamilyOptions.\"<init>\"")) {
                    lines.add("RocksDBStore." + shortName(decl) + ": " + l.trim());
                }
                if (l.contains("Method org/rocksdb/WriteOptions.close:()V")) {
                    closedIn.putIfAbsent(shortName(decl), false);
                }
                if (l.contains("setNoBlockCache")) {
                    noBlockCache = true;
                    lines.add("RocksDBStore." + shortName(decl) + ": " + l.trim());
                }
                if (optionsField != null && l.contains("Field " + optionsField + ":Lorg/rocksdb/ColumnFamilyOptions;")
                    && l.contains("getfield") && i + 1 < body.size()
                    && body.get(i + 1).contains("Method org/rocksdb/ColumnFamilyOptions.close:()V")) {
                    String name = shortName(decl);
                    closedIn.put(name, true);
                    lines.add("RocksDBStore." + name + ": " + l.trim());
                    lines.add("RocksDBStore." + name + ": " + body.get(i + 1).trim());
                }
            }
        }
        String offsetsOptions;
        if (optionsField == null) {
            // No field: each open builds options nothing keeps; unclosed unless RocksDBStore closes some CF options.
            long closes = store.lines().filter(l -> l.contains("Method org/rocksdb/ColumnFamilyOptions.close:()V")).count();
            lines.add("RocksDBStore: no ColumnFamilyOptions field; calls to ColumnFamilyOptions.close(): " + closes);
            offsetsOptions = closes == 0 ? "per-open-unclosed" : "per-open-closed";
        } else {
            boolean all = !closedIn.isEmpty() && !closedIn.containsValue(false);
            lines.add("RocksDBStore: methods that close the WriteOptions -> close the offsets options field: " + closedIn);
            offsetsOptions = all ? "field-closed" : "field-unclosed";
        }
        boolean allFinally = true;
        int seen = 0;
        Map<String, List<String>> acc = methods(javap(jar, ACCESSORS));
        for (Map.Entry<String, List<String>> m : acc.entrySet()) {
            String key = m.getKey();
            if (!key.contains("void close(org.apache.kafka.streams.state.internals.RocksDBStore$DBAccessor)")) {
                continue;
            }
            seen++;
            String cls = key.substring(0, key.indexOf('#')).replaceAll("^.*?class \\S*?internals\\.([A-Za-z0-9_$]+).*$", "$1");
            boolean fin = m.getValue().stream().anyMatch(l -> l.matches("^\\s+\\d+\\s+\\d+\\s+\\d+\\s+any$"));
            lines.add(cls + ".close(DBAccessor): " + (fin ? "Exception table has 'any' (finally)" : "no finally (no 'any' exception-table entry)"));
            allFinally &= fin;
        }
        if (seen == 0) {
            throw new IllegalArgumentException(jar + ": the offsets CF is there but no accessor close(DBAccessor) was found");
        }
        return new JarEvidence(true, offsetsOptions, String.join(",", setters), noBlockCache ? "yes" : "no",
            allFinally ? "yes" : "no", restore, lines);
    }

    static final String[] SEGMENTED = {
        PKG + "AbstractRocksDBSegmentedBytesStore", PKG + "AbstractDualSchemaRocksDBSegmentedBytesStore"
    };

    /**
     * How the segmented stores' {@code restoreAllInternal} releases its write batches: {@code success-path-only} when,
     * in each of them, the only release is one {@code WriteBatch.close()} call (after {@code Segment.write}, so a
     * failed write skips it and every later batch of the map) and nothing else in the method closes batches
     * ({@code Utils.closeQuietly}, a second {@code close()} from a {@code finally}, try-with-resources); {@code other}
     * otherwise.
     */
    static String restoreBatchClose(Path jar, List<String> lines) {
        int seen = 0;
        boolean successOnly = true;
        for (Map.Entry<String, List<String>> m : methods(javap(jar, SEGMENTED)).entrySet()) {
            if (!m.getKey().contains(" restoreAllInternal(")) {
                continue;
            }
            seen++;
            String cls = m.getKey().substring(0, m.getKey().indexOf('#')).replaceAll("^.*?class \\S*?internals\\.([A-Za-z0-9_$]+).*$", "$1");
            long closes = m.getValue().stream().filter(l -> l.contains("Method org/rocksdb/WriteBatch.close:()V")).count();
            long others = m.getValue().stream().filter(l -> l.contains("closeQuietly") || l.contains("closeAll")).count();
            for (String l : m.getValue()) {
                if (l.contains("Segment.write:") || l.contains("WriteBatch.close:")) {
                    lines.add(cls + ".restoreAllInternal: " + l.trim());
                }
            }
            lines.add(cls + ".restoreAllInternal: WriteBatch.close() calls: " + closes + ", other close calls: " + others);
            successOnly &= closes == 1 && others == 0;
        }
        if (seen == 0) {
            return "n/a";
        }
        return successOnly ? "success-path-only" : "other";
    }

    /** "public void close();" → "close()"; "protected static org.rocksdb.X createY();" → "createY()". */
    static String shortName(String decl) {
        String head = decl.contains("(") ? decl.substring(0, decl.indexOf('(')) : decl;
        String name = head.substring(head.lastIndexOf(' ') + 1);
        String args = decl.contains("(") ? decl.substring(decl.indexOf('('), decl.indexOf(')') + 1) : "";
        return name + (args.equals("()") ? "()" : "(…)");
    }
}
