package dev.rocksleak.examples;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Kafka's documented bounded-memory setter (Kafka Streams docs, "Memory management", RocksDB; KAFKA-8215): one
 * static Cache and one static WriteBufferManager shared by every store of the instance, the memtables charged to
 * the cache. They are never closed per store: the stores share them for the life of the process.
 */
public class BoundedMemorySetter implements RocksDBConfigSetter {
    static final long TOTAL_OFF_HEAP_MEMORY = 64 * 1024 * 1024L;
    static final long TOTAL_MEMTABLE_MEMORY = 16 * 1024 * 1024L;
    static final double INDEX_FILTER_BLOCK_RATIO = 0.1;
    static final int N_MEMTABLES = 3;
    static final long MEMTABLE_SIZE = 4 * 1024 * 1024L;
    static final long BLOCK_SIZE = 4 * 1024L;

    private static final Cache CACHE = new LRUCache(TOTAL_OFF_HEAP_MEMORY, -1, false, INDEX_FILTER_BLOCK_RATIO);
    private static final WriteBufferManager WRITE_BUFFER_MANAGER =
        new WriteBufferManager(TOTAL_MEMTABLE_MEMORY, CACHE);

    @Override
    public void setConfig(final String storeName, final Options options, final Map<String, Object> configs) {
        final BlockBasedTableConfig tableConfig = (BlockBasedTableConfig) options.tableFormatConfig();
        // These three options in combination limit the memory used by RocksDB to the size passed to the block cache.
        tableConfig.setBlockCache(CACHE);
        tableConfig.setCacheIndexAndFilterBlocks(true);
        options.setWriteBufferManager(WRITE_BUFFER_MANAGER);
        // These options are recommended with the above.
        tableConfig.setCacheIndexAndFilterBlocksWithHighPriority(true);
        tableConfig.setPinTopLevelIndexAndFilter(true);
        tableConfig.setBlockSize(BLOCK_SIZE);
        options.setMaxWriteBufferNumber(N_MEMTABLES);
        options.setWriteBufferSize(MEMTABLE_SIZE);
        options.setCompressionType(CompressionType.NO_COMPRESSION);
        options.setTableFormatConfig(tableConfig);
    }

    @Override
    public void close(final String storeName, final Options options) {
        // Cache and WriteBufferManager are shared by every store: not closed here.
    }
}
