package dev.rocksleak.child;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.rocksdb.RocksObject;

/**
 * The ownership ledger, read from the real RocksJava objects: every native object the instrument captured from
 * Kafka's stores is asked isOwningHandle() when a sample is taken. Kinds are the Go ledger's names where they mean
 * the same thing (lifecycle/ledger.go): "options" the offsets column family's ColumnFamilyOptions, "cf_handle" the
 * column-family handles RocksDB handed the store, "db" the RocksDB objects, "read_options" each RocksDB object's
 * defaultReadOptions_ (RocksJava's own, never closed by RocksDB.close()), "synthetic" the calibration leak.
 *
 * <p>An object that no longer owns its native handle can never own one again, so it is dropped at the next
 * count: the ledger holds only live objects (under a leak it grows with the leak, one Java reference per leaked
 * native object). The ledger keeps Java references only; RocksJava frees nothing on garbage collection (no
 * finalizer or cleaner), so holding them changes no native memory.
 */
final class Ledger {
    static final String OPTIONS = "options";
    static final String CF_HANDLE = "cf_handle";
    static final String DB = "db";
    static final String READ_OPTIONS = "read_options";
    static final String SYNTHETIC = "synthetic";

    private final Map<String, List<RocksObject>> live = new LinkedHashMap<>();
    private final Map<String, Long> created = new LinkedHashMap<>();
    private final Map<String, Long> releasedLate = new LinkedHashMap<>();
    private long synthetic;

    void track(final String kind, final RocksObject ref) {
        if (ref == null) {
            return;
        }
        live.computeIfAbsent(kind, k -> new ArrayList<>()).add(ref);
        created.merge(kind, 1L, Long::sum);
    }

    void trackSynthetic() {
        synthetic++;
        created.merge(SYNTHETIC, 1L, Long::sum);
    }

    void releasedLate(final String kind, final long n) {
        if (n > 0) {
            releasedLate.merge(kind, n, Long::sum);
        }
    }

    /** Live counts by kind (kinds with none omitted), pruning what no longer owns its handle. */
    Map<String, Long> live() {
        final Map<String, Long> out = new LinkedHashMap<>();
        for (final Map.Entry<String, List<RocksObject>> e : live.entrySet()) {
            long n = 0;
            for (final Iterator<RocksObject> it = e.getValue().iterator(); it.hasNext(); ) {
                if (it.next().isOwningHandle()) {
                    n++;
                } else {
                    it.remove();
                }
            }
            if (n > 0) {
                out.put(e.getKey(), n);
            }
        }
        if (synthetic > 0) {
            out.put(SYNTHETIC, synthetic);
        }
        return out;
    }

    Map<String, Long> releasedLate() {
        return releasedLate;
    }

    Map<String, Long> created() {
        return created;
    }
}
