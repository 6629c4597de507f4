package dev.rocksleak.examples;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;

/** LeakySetter done right (its negative control): the cache built in setConfig is closed in close(). */
public class ClosingSetter implements RocksDBConfigSetter {
    private Cache cache;

    @Override
    public void setConfig(final String storeName, final Options options, final Map<String, Object> configs) {
        final BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        cache = new LRUCache(16 * 1024 * 1024L);
        table.setBlockCache(cache);
        options.setTableFormatConfig(table);
    }

    @Override
    public void close(final String storeName, final Options options) {
        cache.close();
    }
}
