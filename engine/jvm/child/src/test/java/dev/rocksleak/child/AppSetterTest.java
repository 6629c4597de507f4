package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** AppSetter's block-cache figures (the samples' rocksdb_caches_usage), against the caches' own getUsage(). */
class AppSetterTest {
    @TempDir
    Path dir;

    /**
     * A cache's usage in caches() is its getUsage() while a store uses it, after its store closed (read once, then
     * kept), and again when another store is given it and fills it: the kept figure is dropped at that setConfig.
     */
    @Test
    void cacheUsageFollowsItsStoresAndIsReadAfreshWhenReused() throws RocksDBException {
        RocksDB.loadLibrary();
        AppSetter.ledger = new Ledger();
        final long others = AppSetter.caches()[1];
        try (LRUCache cache = new LRUCache(8L << 20)) {
            final long first = storeLife(cache, "a", 0);
            assertTrue(first > 0, "a store's reads put blocks in the cache: usage " + first);
            assertEquals(cache.getUsage(), AppSetter.caches()[1] - others, "after the first store closed");
            assertEquals(cache.getUsage(), AppSetter.caches()[1] - others, "read again while idle");
            final long second = storeLife(cache, "b", 5000);
            assertTrue(second > first, "the second store's reads add blocks: " + first + " then " + second);
            assertEquals(cache.getUsage(), AppSetter.caches()[1] - others, "after the second store closed");
        } finally {
            AppSetter.caches(); // forgets the closed cache
            AppSetter.ledger = null;
        }
    }

    /**
     * One store's life on cache through AppSetter as Kafka drives it: setConfig, the DB opened, 2,000 keys from
     * {@code from} written, flushed and read back in two halves, caches() checked after each (a figure kept while
     * the store is open would miss the second half's blocks), the setter's close, the DB's close.
     * Returns the cache's usage before the close.
     */
    private long storeLife(final LRUCache cache, final String name, final int from) throws RocksDBException {
        final AppSetter setter = new AppSetter();
        try (Options o = new Options().setCreateIfMissing(true)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache))) {
            final long others = AppSetter.caches()[1] - cache.getUsage();
            setter.setConfig("store-" + name, o, Map.of());
            try (RocksDB db = RocksDB.open(o, dir.resolve(name).toString());
                 FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
                for (int i = from; i < from + 2000; i++) {
                    db.put(key(i), new byte[100]);
                }
                db.flush(f);
                for (int i = from; i < from + 1000; i++) {
                    db.get(key(i));
                }
                final long half = cache.getUsage();
                assertEquals(half, AppSetter.caches()[1] - others, "store " + name + " open, half its keys read");
                for (int i = from + 1000; i < from + 2000; i++) {
                    db.get(key(i));
                }
                final long usage = cache.getUsage();
                assertTrue(usage > half, "reading the other half adds blocks: " + half + " then " + usage);
                assertEquals(usage, AppSetter.caches()[1] - others, "store " + name + " open, all its keys read");
                setter.close("store-" + name, o);
                return usage;
            }
        }
    }

    private static byte[] key(final int i) {
        return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
    }
}
