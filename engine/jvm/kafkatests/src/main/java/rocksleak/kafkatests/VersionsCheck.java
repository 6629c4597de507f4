package rocksleak.kafkatests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Checks the versions table (engine/jvm/kafkaversions/versions.tsv) against what Maven resolved: for every row, the
 * rocksdbjni version the kafka-streams pom names, the rocksdbjni jar Maven put on that version's classpath, and the
 * bytecode evidence {@link JarEvidence} reads from the kafka-streams jar.
 *
 * <p>Usage: {@code VersionsCheck <versions.tsv> <cp-dir>}, where {@code <cp-dir>/cp-<version>.txt} is the classpath
 * {@code mvn dependency:build-classpath} wrote for that version. Prints the table as read from the jars; exit status 0
 * when every cell matches, 1 naming each row and column that does not, 2 on bad input (a malformed table or a
 * version Maven did not resolve).
 */
public final class VersionsCheck {
    static final String[] COLUMNS = {
        "kafka_version", "streams_artifact", "rocksdbjni", "offsets_cf", "offsets_options", "offsets_setters",
        "offsets_no_block_cache", "accessor_close_finally", "restore_batch_close"
    };

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: VersionsCheck <versions.tsv> <cp-dir>");
            System.exit(2);
        }
        List<Map<String, String>> rows;
        try {
            rows = readTable(Path.of(args[0]));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        int mismatches = 0;
        System.out.println(String.join("\t", COLUMNS));
        for (Map<String, String> row : rows) {
            String v = row.get("kafka_version");
            Path cpFile = Path.of(args[1], "cp-" + v + ".txt");
            if (!Files.exists(cpFile)) {
                System.err.println("versions.tsv: kafka_version " + v + ": Maven did not resolve it (no " + cpFile + ")");
                System.exit(2);
            }
            String streamsJar = null;
            String rocksJar = null;
            for (String p : Files.readString(cpFile).trim().split(":")) {
                String file = Path.of(p).getFileName().toString();
                if (file.equals("kafka-streams-" + v + ".jar")) {
                    streamsJar = p;
                } else if (file.matches("rocksdbjni-[0-9.]+\\.jar")) {
                    rocksJar = p;
                }
            }
            if (streamsJar == null || rocksJar == null) {
                System.err.println("versions.tsv: kafka_version " + v + ": classpath lacks kafka-streams or rocksdbjni: " + cpFile);
                System.exit(2);
            }
            Path pom = Path.of(streamsJar.replaceAll("\\.jar$", ".pom"));
            String pomRocks = pomDependencyVersion(pom, "org.rocksdb", "rocksdbjni");
            String resolvedRocks = Path.of(rocksJar).getFileName().toString().replaceAll("rocksdbjni-([0-9.]+)\\.jar", "$1");
            JarEvidence ev = JarEvidence.read(Path.of(streamsJar));
            Map<String, String> got = new LinkedHashMap<>();
            got.put("kafka_version", v);
            got.put("streams_artifact", "org.apache.kafka:kafka-streams:" + v);
            got.put("rocksdbjni", pomRocks);
            got.put("offsets_cf", ev.offsetsCf ? "yes" : "no");
            got.put("offsets_options", ev.offsetsOptions);
            got.put("offsets_setters", ev.offsetsSetters);
            got.put("offsets_no_block_cache", ev.noBlockCache);
            got.put("accessor_close_finally", ev.accessorCloseFinally);
            got.put("restore_batch_close", ev.restoreBatchClose);
            System.out.println(String.join("\t", got.values()));
            if (!pomRocks.equals(resolvedRocks)) {
                System.err.printf("%s: the pom names rocksdbjni %s but Maven resolved %s%n", v, pomRocks, resolvedRocks);
                mismatches++;
            }
            for (String c : COLUMNS) {
                if (!got.get(c).equals(row.get(c))) {
                    System.err.printf("versions.tsv: kafka_version %s, column %s: table says %s, the jar/pom says %s%n",
                        v, c, row.get(c), got.get(c));
                    mismatches++;
                }
            }
        }
        if (mismatches > 0) {
            System.err.println(mismatches + " mismatch(es)");
            System.exit(1);
        }
        System.err.println("versions.tsv: " + rows.size() + " rows match their poms, Maven's resolution and their jars");
    }

    /** Reads the tab-separated table: a header naming exactly {@link #COLUMNS}, then one row per version; '#' lines are comments. */
    static List<Map<String, String>> readTable(Path tsv) throws IOException {
        List<Map<String, String>> rows = new ArrayList<>();
        String[] header = null;
        int n = 0;
        for (String line : Files.readAllLines(tsv)) {
            n++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] cells = line.split("\t", -1);
            if (header == null) {
                if (!List.of(cells).equals(List.of(COLUMNS))) {
                    throw new IllegalArgumentException(tsv + ":" + n + ": header must be " + String.join(" ", COLUMNS));
                }
                header = cells;
                continue;
            }
            if (cells.length != header.length) {
                throw new IllegalArgumentException(tsv + ":" + n + ": " + cells.length + " cells, want " + header.length);
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], cells[i]);
            }
            rows.add(row);
        }
        if (header == null) {
            throw new IllegalArgumentException(tsv + ": no header");
        }
        return rows;
    }

    /** The version a pom gives a direct dependency (Kafka's Gradle-published poms name literal versions). */
    static String pomDependencyVersion(Path pom, String group, String artifact) throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        NodeList deps = doc.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            if (group.equals(text(d, "groupId")) && artifact.equals(text(d, "artifactId"))) {
                return text(d, "version");
            }
        }
        throw new IllegalArgumentException(pom + ": no dependency " + group + ":" + artifact);
    }

    private static String text(Element e, String tag) {
        NodeList l = e.getElementsByTagName(tag);
        return l.getLength() == 0 ? "" : l.item(0).getTextContent().trim();
    }
}
