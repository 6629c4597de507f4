package dev.rocksleak.child;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The RocksDB instances open now (as the store hooks report them) and RocksDB's own memory figures summed over
 * them. A DB closed on a path the hooks do not see is dropped when it is next looked at.
 */
final class OpenDbs {
    private final Map<RocksDB, Boolean> dbs = new IdentityHashMap<>();

    void opened(final RocksDB db) {
        dbs.put(db, Boolean.TRUE);
    }

    void closed(final RocksDB db) {
        dbs.remove(db);
    }

    /** RocksDB's own figures summed over the open DBs: memtables, table readers, block cache; and their count. */
    long[] figures() {
        long mem = 0, readers = 0, cache = 0;
        int n = 0;
        for (final RocksDB db : new ArrayList<>(dbs.keySet())) {
            if (!db.isOwningHandle()) {
                dbs.remove(db); // closed on a path the hooks do not see (a failed open's cleanup)
                continue;
            }
            try {
                mem += db.getAggregatedLongProperty("rocksdb.size-all-mem-tables");
                readers += db.getAggregatedLongProperty("rocksdb.estimate-table-readers-mem");
                cache += db.getLongProperty("rocksdb.block-cache-usage");
                n++;
            } catch (final RocksDBException e) {
                throw new IllegalStateException("reading RocksDB's memory properties: " + e.getMessage(), e);
            }
        }
        return new long[] {mem, readers, cache, n};
    }

    /** The DBs open now. */
    List<RocksDB> list() {
        dbs.keySet().removeIf(db -> !db.isOwningHandle());
        return new ArrayList<>(dbs.keySet());
    }

    int count() {
        dbs.keySet().removeIf(db -> !db.isOwningHandle());
        return dbs.size();
    }
}
