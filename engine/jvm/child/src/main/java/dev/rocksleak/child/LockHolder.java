package dev.rocksleak.child;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * A second open of a store's RocksDB directory that holds its LOCK file, so that Kafka's own open of the same
 * directory is refused by RocksDB: the init failure of an op with init_failures, as Kafka meets it when another
 * stream thread (or instance) still holds a task's store during a migration. RocksDB's PosixEnv::LockFile refuses a
 * second lock of one file within a process ("IO error: lock hold by current process, acquire time ... acquiring
 * thread ...: No locks available"), and {@code RocksDBStore.openRocksDB} turns the RocksDBException into a
 * ProcessorStateException ("Error opening store ... at location ..."), which openDB passes on after its
 * closeNativeResources().
 *
 * <p>A plain RocksJava open, not a Kafka store: it opens every column family the directory has (RocksDB refuses an
 * open that leaves one out) with default options, creating the DB when the directory holds none. It is the
 * instrument's, not counted as a lifecycle, not in the ledger and not among the open DBs; {@link #close()} closes
 * everything it made, RocksJava's {@code defaultReadOptions_} included (RocksDB.close() leaves it), so that it
 * leaves nothing behind the failed open could be charged with. Owner: the executor's open, for one attempt.
 */
final class LockHolder implements AutoCloseable {
    private final List<AutoCloseable> owned = new ArrayList<>(); // closed in reverse order
    private RocksDB db;

    private LockHolder() {
    }

    /** Opens dir (created when missing) and holds its LOCK until close(); the exception is RocksDB's. */
    static LockHolder hold(final File dir) throws RocksDBException {
        final LockHolder h = new LockHolder();
        try {
            h.open(dir);
        } catch (final RocksDBException | RuntimeException e) {
            h.close();
            throw e;
        }
        return h;
    }

    private void open(final File dir) throws RocksDBException {
        if (!dir.mkdirs() && !dir.isDirectory()) {
            throw new IllegalStateException("cannot create " + dir);
        }
        final List<byte[]> names;
        try (Options listing = new Options()) {
            names = new File(dir, "CURRENT").exists()
                ? RocksDB.listColumnFamilies(listing, dir.getAbsolutePath()) : List.of(RocksDB.DEFAULT_COLUMN_FAMILY);
        }
        final DBOptions opts = keep(new DBOptions().setCreateIfMissing(true));
        final List<ColumnFamilyDescriptor> cfs = new ArrayList<>();
        for (final byte[] name : names) {
            cfs.add(new ColumnFamilyDescriptor(name, keep(new ColumnFamilyOptions())));
        }
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        db = RocksDB.open(opts, dir.getAbsolutePath(), cfs, handles);
        handles.forEach(this::keep);
    }

    private <T extends AutoCloseable> T keep(final T o) {
        owned.add(o);
        return o;
    }

    /** Closes the handles, the DB (releasing the LOCK), its default read options and the options. Idempotent. */
    @Override
    public void close() {
        final List<AutoCloseable> handles = new ArrayList<>();
        final List<AutoCloseable> options = new ArrayList<>();
        for (final AutoCloseable o : owned) {
            (o instanceof ColumnFamilyHandle ? handles : options).add(o);
        }
        owned.clear();
        handles.forEach(LockHolder::quietly);
        if (db != null) {
            final ReadOptions ro = Instance.defaultReadOptions(db);
            db.close();
            if (ro != null) {
                ro.close();
            }
            db = null;
        }
        options.forEach(LockHolder::quietly);
    }

    private static void quietly(final AutoCloseable o) {
        try {
            o.close();
        } catch (final Exception e) {
            throw new IllegalStateException("closing the lock holder's " + o.getClass().getSimpleName() + ": " + e, e);
        }
    }
}
