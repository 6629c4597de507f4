package dev.rocksleak.examples;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;

/**
 * A config setter that leaks (a known answer of docs/your-application.md): it builds a block cache for every store
 * in setConfig and never closes it in close(). Each store open leaves one LRUCache owning its native object.
 * Kafka's own cache, which this replaces, Kafka still closes.
 */
public class LeakySetter implements RocksDBConfigSetter {
    @Override
    public void setConfig(final String storeName, final Options options, final Map<String, Object> configs) {
        final BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(new LRUCache(16 * 1024 * 1024L)); // never closed: the leak
        options.setTableFormatConfig(table);
    }

    @Override
    public void close(final String storeName, final Options options) {
        // the cache built in setConfig should be closed here
    }
}
