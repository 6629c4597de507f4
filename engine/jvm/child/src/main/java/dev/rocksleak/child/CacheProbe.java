package dev.rocksleak.child;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.apache.kafka.streams.state.Stores;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksObject;

/**
 * What one RocksJava {@code LRUCache} of a given capacity costs in C memory on the rocksdbjni on the classpath, the
 * known answer of the leaky config setter example (examples/java's LeakySetter builds one such cache per store open
 * and never closes it; docs/your-application.md). Two figures, each from the C allocator's bytes in use (the
 * Sampler's native heap):
 * <ul>
 * <li><b>empty</b>: n caches built, the native heap read before and after;</li>
 * <li><b>after one store life</b>: for each of {@code lives} caches, one store life on it as a task's life runs in
 * the child: a TopologyTestDriver made over one of Kafka's own persistent key-value stores (Kafka's RocksDBStore
 * opens its RocksDB, calling this probe's config setter, which sets the cache as the block cache), {@code records}
 * records piped into it, the driver closed (the store and its RocksDB closed, the cache not). Then the caches' own
 * {@code getUsage()} and {@code getPinnedUsage()} are read and the native heap each cache gives back when closed is
 * measured (the median over the caches): what a cache its store has left behind holds. RocksDB's DB open puts its block-cache entry-stats
 * collector into the cache (a "misc" entry, charged 0 plus its handle's metadata) and the DB's close leaves it
 * there, so this figure is larger than the empty one (docs/findings.md, 2026-12-06).</li>
 * </ul>
 * Prints {@code <bytes> B per empty LRUCache(<capacity>) ...}, then {@code <bytes> B per LRUCache(<capacity>) after one
 * store life ...} and the entries RocksDB reports in a new cache while a DB it has just opened uses it.
 *
 * <p>glibc counts the freed chunks its per-thread cache keeps (tcache, up to 7 a size) as in use, which reads the
 * second figure low over few caches; {@code GLIBC_TUNABLES=glibc.malloc.tcache_count=0} turns that cache off:
 *
 * <p>{@code GLIBC_TUNABLES=glibc.malloc.tcache_count=0 java -cp build/jvm/rocksleak-child.jar:$(cat
 * build/jvm/classpath-4.3.1.txt) dev.rocksleak.child.CacheProbe [capacity-bytes] [n] [lives] [records]}
 * (defaults 16 MiB, 1000, 100, 100; lives 0: the empty figure only)
 */
public final class CacheProbe {
    private static final int WARM_UP_LIVES = 20;
    /** The caches the probe's setter built, in store-open order (the probe runs on one thread). */
    private static final List<LRUCache> BUILT = new ArrayList<>();
    private static volatile long capacity = 16L << 20;

    private CacheProbe() {
    }

    public static void main(final String[] args) throws IOException {
        RocksDB.loadLibrary();
        capacity = args.length > 0 ? Long.parseLong(args[0]) : 16L << 20;
        final int n = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final int lives = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        final int records = args.length > 3 ? Integer.parseInt(args[3]) : 100;
        final Sampler s = new Sampler("glibc");
        System.out.printf("%.0f B per empty LRUCache(%d) on rocksdbjni %s (%d caches; native heap)%n",
            empty(s, n), capacity, RocksDB.rocksdbVersion(), n);
        if (lives < 1) {
            return;
        }
        final Path dir = Files.createTempDirectory("rocksleak-cache-probe");
        try {
            afterStoreLives(s, dir, WARM_UP_LIVES, records); // warm the JIT, Kafka's classes and the allocator
            final double[] b = afterStoreLives(s, dir, lives, records);
            System.out.printf("%.0f B per LRUCache(%d) after one store life (Kafka's RocksDBStore opened on it, %d "
                    + "records written, closed; %d caches; the median of the native heap one close released); its usage %.0f B, "
                    + "pinned %.0f B%n", b[0], capacity, records, lives, b[1], b[2]);
            System.out.println("its entries while a RocksDB is open on it (block-cache-entry-stats, the non-zero "
                + "counts): " + entriesWhileOpen(dir.resolve("plain")));
        } finally {
            Executor.deleteTree(dir);
        }
    }

    /** The non-zero entry counts by role RocksDB reports for a new cache while one DB, just opened, uses it. */
    private static Map<String, String> entriesWhileOpen(final Path dir) {
        final Map<String, String> counts = new TreeMap<>();
        try (LRUCache c = new LRUCache(capacity); Options o = new Options().setCreateIfMissing(true)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(c));
             RocksDB db = RocksDB.open(o, dir.toString())) {
            db.getMapProperty("rocksdb.block-cache-entry-stats").forEach((k, v) -> {
                if (k.startsWith("count.") && !"0".equals(v)) {
                    counts.put(k.substring("count.".length()), v);
                }
            });
        } catch (final RocksDBException e) {
            throw new IllegalStateException("a RocksDB on the cache: " + e.getMessage(), e);
        }
        return counts;
    }

    /** The native heap's growth per cache while n empty caches are owned. */
    private static double empty(final Sampler s, final int n) {
        for (int i = 0; i < 50; i++) {
            new LRUCache(capacity).close(); // warm the allocator and the JNI paths
        }
        final RocksObject[] keep = new RocksObject[n];
        final long h0 = s.nativeHeap();
        for (int i = 0; i < n; i++) {
            keep[i] = new LRUCache(capacity);
        }
        final long h1 = s.nativeHeap();
        for (final RocksObject o : keep) {
            o.close();
        }
        return (h1 - h0) / (double) n;
    }

    /**
     * Runs lives store lives, one cache each, then closes the caches one at a time: the median over the caches of
     * the native heap one close gave back, and their mean getUsage() and getPinnedUsage() before. The heap is read
     * around each close, not around all of them, because the JVM's own threads (its JIT compilers, its GC) allocate
     * and free C memory meanwhile: read around 50 closes at once the figure swung from 10,958 B to 18,927 B a cache
     * where its mode was 13,897 B; a window of one close is rarely hit, and the median ignores those that are.
     */
    private static double[] afterStoreLives(final Sampler s, final Path dir, final int lives, final int records) {
        BUILT.clear();
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "rocksleak-cache-probe");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092"); // the driver contacts no broker
        p.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
        p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, Setter.class.getName());
        final Random rnd = new Random(1);
        for (int i = 0; i < lives; i++) {
            storeLife(p, records, rnd);
        }
        if (BUILT.size() != lives) {
            throw new IllegalStateException(lives + " store lives opened " + BUILT.size() + " RocksDB instances");
        }
        long usage = 0;
        long pinned = 0;
        for (final LRUCache c : BUILT) {
            usage += c.getUsage();
            pinned += c.getPinnedUsage();
        }
        final long[] released = new long[lives];
        for (int i = 0; i < lives; i++) {
            final long h0 = s.nativeHeap();
            BUILT.get(i).close();
            released[i] = h0 - s.nativeHeap();
        }
        Arrays.sort(released);
        final double median = (released[(lives - 1) / 2] + released[lives / 2]) / 2.0;
        return new double[] {median, usage / (double) lives, pinned / (double) lives};
    }

    /** One task's life over one persistent key-value store: the driver made, records piped, the driver closed. */
    private static void storeLife(final Properties p, final int records, final Random rnd) {
        final Topology t = new Topology();
        t.addSource("source", Serdes.String().deserializer(), Serdes.String().deserializer(), "input");
        t.addProcessor("write", Writer::new, "source");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("probe"), Serdes.String(),
            Serdes.String()), "write");
        try (TopologyTestDriver d = new TopologyTestDriver(t, p, Instant.ofEpochMilli(1_700_000_000_000L))) {
            final TestInputTopic<String, String> in = d.createInputTopic("input", new StringSerializer(),
                new StringSerializer());
            for (int i = 0; i < records; i++) {
                in.pipeInput("key-" + rnd.nextInt(1000), "value-" + i);
            }
            d.advanceWallClockTime(Duration.ofSeconds(10));
        }
    }

    /** The probe's config setter: a new cache per store open, never closed by the store (closed by the probe). */
    public static final class Setter implements RocksDBConfigSetter {
        @Override
        public void setConfig(final String storeName, final Options options, final Map<String, Object> configs) {
            final BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
            final LRUCache c = new LRUCache(capacity);
            BUILT.add(c);
            table.setBlockCache(c);
            options.setTableFormatConfig(table);
        }

        @Override
        public void close(final String storeName, final Options options) {
            // the probe closes the cache after the store's life, to measure what it holds
        }
    }

    private static final class Writer implements Processor<String, String, Void, Void> {
        private KeyValueStore<String, String> store;

        @Override
        public void init(final ProcessorContext<Void, Void> context) {
            store = context.getStateStore("probe");
        }

        @Override
        public void process(final Record<String, String> r) {
            store.put(r.key(), r.value());
        }
    }
}
