package dev.rocksleak.child;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Kafka's documented bounded-memory config setter (Kafka Streams developer guide, "Memory management", RocksDB:
 * BoundedMemoryRocksDBConfig), reached the way an application reaches it: the store context's app configs carry
 * {@code rocksdb.config.setter} = this class, and Kafka's {@code RocksDBStore.openDB} instantiates it
 * ({@code Utils.newInstance}, one per store instance) and calls {@link #setConfig} after its own table config,
 * cache and filter. One LRU cache of {@link #CACHE_BYTES} bytes (not strict, high-priority pool ratio 0.1 for
 * index and filter blocks) and one WriteBufferManager limited to {@link #WRITE_BUFFER_BYTES} bytes charged to it
 * are shared by every store of the process (the docs' static fields), built at the first store's open from the
 * scenario's bounded_cache_bytes and bounded_write_buffer_bytes, and never closed per store: the stores share them
 * for the life of the process. The same five settings as the Go engine's bounded shim (lifecycle/bounded_shim.cc);
 * the docs' block size, memtable count and size and compression are left at Kafka's defaults there too.
 */
public final class BoundedMemorySetter implements RocksDBConfigSetter {
    /** App config key: the shared cache's capacity in bytes (the docs' TOTAL_OFF_HEAP_MEMORY). */
    public static final String CACHE_BYTES = "rocksleak.bounded.cache.bytes";
    /** App config key: the write buffer manager's limit in bytes (the docs' TOTAL_MEMTABLE_MEMORY). */
    public static final String WRITE_BUFFER_BYTES = "rocksleak.bounded.write.buffer.bytes";
    /** The docs' INDEX_FILTER_BLOCK_RATIO. */
    static final double INDEX_FILTER_BLOCK_RATIO = 0.1;

    private static Cache cache;
    private static WriteBufferManager writeBufferManager;
    private static long cacheBytes;

    /** The shared cache, built on the first call (later calls must ask for the same sizes). */
    static synchronized Cache shared(final long cacheBytes, final long writeBufferBytes) {
        if (cache == null) {
            cache = new LRUCache(cacheBytes, -1, false, INDEX_FILTER_BLOCK_RATIO);
            writeBufferManager = new WriteBufferManager(writeBufferBytes, cache);
            BoundedMemorySetter.cacheBytes = cacheBytes;
        } else if (cacheBytes != BoundedMemorySetter.cacheBytes) {
            throw new IllegalStateException("bounded memory: the shared cache has " + BoundedMemorySetter.cacheBytes
                + " bytes, a store asked for " + cacheBytes);
        }
        return cache;
    }

    /** The shared cache once built, else null (for tests). */
    static synchronized Cache sharedCache() {
        return cache;
    }

    @Override
    public void setConfig(final String storeName, final Options options, final Map<String, Object> configs) {
        final Cache c = shared(bytes(configs, CACHE_BYTES), bytes(configs, WRITE_BUFFER_BYTES));
        final BlockBasedTableConfig tableConfig = (BlockBasedTableConfig) options.tableFormatConfig();
        // These three options in combination limit the memory used by RocksDB to the size passed to the block cache.
        tableConfig.setBlockCache(c);
        tableConfig.setCacheIndexAndFilterBlocks(true);
        synchronized (BoundedMemorySetter.class) {
            options.setWriteBufferManager(writeBufferManager);
        }
        // These options are recommended with the above.
        tableConfig.setCacheIndexAndFilterBlocksWithHighPriority(true);
        tableConfig.setPinTopLevelIndexAndFilter(true);
        options.setTableFormatConfig(tableConfig);
    }

    @Override
    public void close(final String storeName, final Options options) {
        // The cache and the write buffer manager are shared by every store: not closed here (the docs' example).
    }

    private static long bytes(final Map<String, Object> configs, final String key) {
        final Object v = configs.get(key);
        if (v == null) {
            throw new IllegalStateException("bounded memory: app config " + key + " is not set");
        }
        final long n = Long.parseLong(v.toString());
        if (n <= 0) {
            throw new IllegalStateException("bounded memory: app config " + key + " must be positive, got " + n);
        }
        return n;
    }
}
