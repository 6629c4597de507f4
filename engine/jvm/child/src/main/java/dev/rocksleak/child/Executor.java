package dev.rocksleak.child;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.RocksleakStores;
import org.apache.kafka.streams.state.internals.WindowKeySchema;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Executes the op stream (the Go workload package's protocol) on Kafka Streams' own stores and counts what the Go
 * engine counts: a lifecycle per RocksDB instance closed (a window segment or a key-value store, restores
 * included), a failed close per close whose status write RocksDB refused, a restore per store restored from its
 * changelog. With instrumented false (the bare loop) it runs the same store operations with no ledger and no
 * samples.
 */
final class Executor {
    /** The op stream ended or the stop condition was met. */
    enum Stop { NONE, LIMIT, SETTLED, INTERRUPTED, END }

    private final Job job;
    private final boolean instrumented;
    final Ledger ledger;
    private final File root;
    private final Path changelogRoot;
    private final Slot[][] slots;
    private final Map<RocksDB, Boolean> openDbs = new IdentityHashMap<>();
    private final long begin = System.nanoTime();

    long steps, lifecycles, failedCloses, initFailures, records, rebalances, taskErrors, restores, restoredRecords,
        restoreLifecycles;
    /** Records whose put the store refused (the Go engine's records_write_failed: Kafka reprocesses them). */
    long writeFailed;
    /**
     * The distinct task errors (texts that differ only in their numbers share one), each capped at 300 characters,
     * at most 5, with how many task errors had each: the Go child's rule (schema.TaskErrorTally).
     */
    final List<String> taskErrorExamples = new ArrayList<>();
    final List<Long> taskErrorCounts = new ArrayList<>();
    private final Map<String, Integer> taskErrorIndex = new HashMap<>();
    /** The stores' app configs beyond the context's base ones (rocksdb.config.setter when bounded memory is on). */
    private final Map<String, Object> appConfigs = new HashMap<>();
    /** Task errors whose cause chain names a storage fault, by fault (schema.StorageFaults' words). */
    final Map<String, Long> storageFaults = new java.util.TreeMap<>();
    private static final String[][] STORAGE_FAULTS = {
        {"ENOSPC", "No space left on device"}, {"EROFS", "Read-only file system"}, {"EIO", "Input/output error"}};
    final List<Long> restoreTimes = new ArrayList<>();
    /** The first close-time status-write error seen (for the docs and tests). */
    String firstCloseError;

    private static final Field DEFAULT_READ_OPTIONS = defaultReadOptionsField();

    Executor(final Job job, final boolean instrumented) throws IOException {
        this.job = job;
        this.instrumented = instrumented;
        this.ledger = instrumented ? new Ledger() : null;
        this.root = new File(job.stateDir);
        Files.createDirectories(root.toPath());
        // Go package changelog's layout: <changelog_dir>/changelog/task-<k>/store-<s>.log (changelog.Path).
        this.changelogRoot = (job.changelogDir != null && !job.changelogDir.isEmpty()
            ? Path.of(job.changelogDir) : root.toPath()).resolve("changelog");
        if (job.boundedCacheBytes > 0) {
            // Kafka's bounded-memory example, reached as an application reaches it: rocksdb.config.setter.
            appConfigs.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedMemorySetter.class);
            appConfigs.put(BoundedMemorySetter.CACHE_BYTES, job.boundedCacheBytes);
            appConfigs.put(BoundedMemorySetter.WRITE_BUFFER_BYTES, job.boundedWriteBufferBytes);
        }
        if (job.restoreScratchBytes > 0) {
            throw new UnsupportedOperationException("scenario.restore_scratch_bytes > 0 is not run by the JVM child yet");
        }
        slots = new Slot[job.tasks][job.storesPerTask];
        for (int t = 0; t < job.tasks; t++) {
            for (int s = 0; s < job.storesPerTask; s++) {
                slots[t][s] = new Slot(t, s);
            }
        }
    }

    long elapsedNs() {
        return System.nanoTime() - begin;
    }

    // ---- the slots and their instances ----------------------------------------------------------------------

    /** One logical store of a task: its open instance, its directory generation and its changelog. */
    final class Slot {
        final int task, idx;
        int gen;
        Instance inst;
        Changelog log;
        long maxTs = Long.MIN_VALUE; // the latest record timestamp appended
        boolean wiped;

        Slot(final int task, final int idx) {
            this.task = task;
            this.idx = idx;
        }

        String name() {
            return "store-" + idx;
        }

        File taskDir() {
            return new File(root, "task-" + task + File.separator + "gen-" + gen);
        }

        Changelog changelog() throws IOException {
            if (log == null) {
                log = new Changelog(changelogRoot.resolve("task-" + task).resolve("store-" + idx + ".log"));
            }
            return log;
        }
    }

    /** One opened instance of a slot's store, and the hooks its RocksDB instances report to. */
    final class Instance implements RocksleakStores.Hooks {
        final Slot slot;
        StateStore store;
        StoreContext ctx;
        boolean armed;
        boolean sticky;
        final boolean counted;

        Instance(final Slot slot, final boolean counted) {
            this.slot = slot;
            this.counted = counted;
        }

        @Override
        public void offsetsOptions(final ColumnFamilyOptions options) {
            if (instrumented) {
                ledger.track(Ledger.OPTIONS, options);
            }
        }

        @Override
        public void opened(final RocksDB db, final List<ColumnFamilyHandle> handles) {
            openDbs.put(db, Boolean.TRUE);
            if (!instrumented) {
                return;
            }
            ledger.track(Ledger.DB, db);
            for (final ColumnFamilyHandle h : handles) {
                ledger.track(Ledger.CF_HANDLE, h);
            }
            ledger.track(Ledger.READ_OPTIONS, defaultReadOptions(db));
        }

        @Override
        public boolean armed() {
            return armed;
        }

        @Override
        public boolean sticky() {
            return sticky;
        }

        @Override
        public void closed(final RocksDB db, final String statusWriteError, final int releasedLate) {
            openDbs.remove(db);
            if (job.readOptionsFix) {
                // facebook/rocksdb#15069 (open): RocksDB.close() also closes defaultReadOptions_. Kafka has just closed
                // the DB; close its read options as that fix would.
                final ReadOptions ro = defaultReadOptions(db);
                if (ro != null) {
                    ro.close();
                }
            }
            if (!counted) {
                return;
            }
            lifecycles++;
            if (statusWriteError != null) {
                failedCloses++;
                if (firstCloseError == null) {
                    firstCloseError = statusWriteError;
                }
            }
            if (instrumented) {
                ledger.releasedLate(Ledger.CF_HANDLE, releasedLate);
            }
            if (job.synthetic) {
                syntheticLeak();
            }
        }
    }

    private void syntheticLeak() {
        // The calibration's positive control: C memory malloc'd, touched and never freed.
        final long n = job.syntheticLeakBytes;
        final long p = Native.malloc(n);
        if (p == 0) {
            throw new OutOfMemoryError("malloc(" + n + ")");
        }
        new Pointer(p).setMemory(0, n, (byte) 0x5a);
        if (instrumented) {
            ledger.trackSynthetic();
        }
    }

    private static Field defaultReadOptionsField() {
        try {
            final Field f = RocksDB.class.getDeclaredField("defaultReadOptions_");
            f.setAccessible(true);
            return f;
        } catch (final NoSuchFieldException e) {
            return null; // RocksJava before 8.10 has none
        }
    }

    private static ReadOptions defaultReadOptions(final RocksDB db) {
        if (DEFAULT_READ_OPTIONS == null) {
            return null;
        }
        try {
            return (ReadOptions) DEFAULT_READ_OPTIONS.get(db);
        } catch (final IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Builds and inits a slot's store (a window store at streamTime); the exception is Kafka's. */
    private Instance openInstance(final Slot slot, final boolean counted) {
        final Instance inst = new Instance(slot, counted);
        final String name = slot.name();
        switch (job.store) {
            case "window":
                inst.store = RocksleakStores.timestampedWindow(name, job.retentionMs, job.segmentInterval(),
                    job.segmentInterval(), inst);
                break;
            case "migrating":
                inst.store = RocksleakStores.timestampedKeyValue(name, inst);
                break;
            default:
                inst.store = RocksleakStores.keyValue(name, inst);
        }
        final File dir = slot.taskDir();
        dir.mkdirs();
        inst.ctx = new StoreContext(slot.task, dir, job.exactlyOnce, appConfigs);
        try {
            inst.store.init(inst.ctx.context(), inst.store);
        } catch (final RuntimeException e) {
            // What init opened before it failed (a window store's earlier segments) is closed, not left open.
            try {
                inst.store.close();
            } catch (final RuntimeException ignored) {
                // closing a half-initialised store may throw; the failure reported is init's
            }
            throw e;
        }
        return inst;
    }

    // ---- ops ----------------------------------------------------------------------------------------------------

    /** Executes one op; returns the stop it calls for (NONE to go on). */
    Stop execute(final JsonNode op, final StopCheck check) throws Exception {
        final String kind = op.path("op").asText("");
        switch (kind) {
            case "step": {
                final Stop s = check.atStep(this);
                if (s != Stop.NONE) {
                    return s;
                }
                steps++;
                return Stop.NONE;
            }
            case "seed_old":
                seedOld(slot(op));
                return Stop.NONE;
            case "open": {
                final int fails = op.path("init_failures").asInt(0);
                if (fails > 0) {
                    throw new UnsupportedOperationException("op open with init_failures > 0 is not run by the JVM "
                        + "child yet");
                }
                open(slot(op));
                return Stop.NONE;
            }
            case "put":
                if (op.path("init_failures").asInt(0) > 0) {
                    throw new UnsupportedOperationException("op put with init_failures > 0 is not run by the JVM "
                        + "child yet");
                }
                put(slot(op), text(op, "key"), num(op, "ts"), num(op, "ver"));
                return Stop.NONE;
            case "get":
            case "range":
                read(slot(op), kind, op);
                return Stop.NONE;
            case "commit":
                commit((int) num(op, "task"));
                return Stop.NONE;
            case "arm": {
                final String fault = text(op, "fault");
                if (!fault.equals("transient") && !fault.equals("sticky")) {
                    throw new Job.BadInput("op arm: unknown fault \"" + fault + "\" (transient, sticky)");
                }
                final Slot s = slot(op);
                if (s.inst != null) {
                    s.inst.armed = true;
                    s.inst.sticky = fault.equals("sticky");
                }
                return Stop.NONE;
            }
            case "close":
                closeSlot(slot(op), true);
                return Stop.NONE;
            case "rebalance":
                rebalances++;
                return Stop.NONE;
            case "sample_point":
                check.samplePoint(this);
                return Stop.NONE;
            case "end":
                return Stop.END;
            default:
                throw new Job.BadInput("op: unknown op \"" + kind + "\"");
        }
    }

    /** The stop condition and the sampling, which the caller owns. */
    interface StopCheck {
        Stop atStep(Executor e);

        void samplePoint(Executor e) throws IOException;
    }

    private Slot slot(final JsonNode op) throws Job.BadInput {
        final int t = (int) num(op, "task");
        final int s = (int) num(op, "store");
        if (t < 0 || t >= job.tasks) {
            throw new Job.BadInput("op " + op.path("op").asText() + ": task: " + t + " out of range [0," + job.tasks + ")");
        }
        if (s < 0 || s >= job.storesPerTask) {
            throw new Job.BadInput("op " + op.path("op").asText() + ": store: " + s + " out of range [0,"
                + job.storesPerTask + ")");
        }
        return slots[t][s];
    }

    private static long num(final JsonNode op, final String f) throws Job.BadInput {
        final JsonNode v = op.get(f);
        if (v == null || !v.isIntegralNumber()) {
            throw new Job.BadInput("op " + op.path("op").asText() + ": " + f + ": missing or not an integer");
        }
        return v.asLong();
    }

    private static String text(final JsonNode op, final String f) throws Job.BadInput {
        final JsonNode v = op.get(f);
        if (v == null || !v.isTextual()) {
            throw new Job.BadInput("op " + op.path("op").asText() + ": " + f + ": missing or not a string");
        }
        return v.asText();
    }

    /**
     * seed_old: every key written once in the pre-upgrade format (a plain RocksDBStore's values), timestamp 0,
     * version 0, so that the timestamped store opens with old data and Kafka's dual accessor serves it. Setup: not
     * counted; the records go to the changelog.
     */
    private void seedOld(final Slot slot) throws IOException {
        final Instance inst = new Instance(slot, false);
        final KeyValueStore<Bytes, byte[]> kv = RocksleakStores.keyValue(slot.name(), inst);
        final File dir = slot.taskDir();
        dir.mkdirs();
        inst.ctx = new StoreContext(slot.task, dir, false);
        kv.init(inst.ctx.context(), kv);
        try {
            for (int k = 0; k < job.keySpread; k++) {
                final String key = String.format("key-%06d", k);
                kv.put(Bytes.wrap(key.getBytes(StandardCharsets.US_ASCII)),
                    RecordValue.of(job.seed, job.valueBytes, slot.task, slot.idx, key, 0, 0));
                slot.changelog().append(key, 0, 0);
                slot.maxTs = Math.max(slot.maxTs, 0);
            }
        } finally {
            kv.close();
        }
    }

    private void open(final Slot slot) throws IOException {
        if (slot.inst != null) {
            return;
        }
        if (slot.wiped) {
            slot.wiped = false;
            restore(slot, false);
            return;
        }
        try {
            slot.inst = openInstance(slot, true);
        } catch (final RuntimeException e) {
            if (isTaskCorrupted(e)) {
                corruptTask(slot);
            } else {
                taskError(slot, e);
                restore(slot, true);
            }
        }
    }

    private static boolean isTaskCorrupted(Throwable e) {
        for (; e != null; e = e.getCause()) {
            if (e.getClass().getSimpleName().equals("TaskCorruptedException")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Kafka's handling of a TaskCorruptedException under exactly-once: the task is closed dirty and its whole
     * directory wiped (every store of the task), then every store restores from its changelog. The other stores'
     * closes are reactions and never fail.
     */
    private void corruptTask(final Slot slot) throws IOException {
        final List<Slot> reopen = new ArrayList<>();
        for (final Slot o : slots[slot.task]) {
            if (o == slot) {
                continue;
            }
            if (o.inst != null) {
                closeSlot(o, false);
                reopen.add(o);
            } else {
                o.wiped = true;
            }
        }
        deleteTree(new File(root, "task-" + slot.task).toPath());
        restore(slot, false);
        for (final Slot o : reopen) {
            restore(o, false);
        }
    }

    private void taskError(final Slot slot, final Throwable e) {
        taskErrors++;
        // The whole cause chain, as Kafka logs it: a ProcessorStateException's own message does not say that
        // RocksDB's open failed with "No space left on device"; its cause does (the parent reads storage faults
        // from these texts).
        final StringBuilder chain = new StringBuilder(String.valueOf(e));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            chain.append("; caused by: ").append(c);
        }
        final String msg = chain.toString().strip().replace('\n', ' ');
        for (final String[] f : STORAGE_FAULTS) {
            if (msg.contains(f[1])) {
                storageFaults.merge(f[0], 1L, Long::sum);
            }
        }
        final String key = msg.replaceAll("[0-9]+", "#");
        final Integer i = taskErrorIndex.get(key);
        if (i != null) {
            taskErrorCounts.set(i, taskErrorCounts.get(i) + 1);
        } else if (taskErrorExamples.size() < 5) {
            String ex = "task " + slot.task + " " + slot.name() + ": " + msg;
            if (ex.length() > 300) {
                ex = ex.substring(0, 299) + "\u2026";
            }
            taskErrorIndex.put(key, taskErrorExamples.size());
            taskErrorExamples.add(ex);
            taskErrorCounts.add(1L);
        }
    }

    /**
     * Restores a slot's store from its changelog: wiped (or moved to a fresh directory), opened empty (a window
     * store at stream time -1) and fed the changelog in restore batches through the callback the store registered,
     * as the restore consumer would: a window store's batches advance its stream time, creating and expiring
     * segments (counted apart as restore lifecycles). Records are as Kafka's changelog holds them: a window
     * store's key in WindowKeySchema's binary form (sequence number 0), timestamped values as the restore's
     * converter makes them (8-byte timestamp, then the value). A window store's changelog keeps retention +
     * windowstore.changelog.additional.retention.ms of records: older ones are skipped as the broker would have
     * deleted them.
     */
    private void restore(final Slot slot, final boolean moveAway) throws IOException {
        final long t0 = System.nanoTime();
        if (moveAway) {
            slot.gen++;
        } else {
            deleteTree(new File(slot.taskDir(), slot.name()).toPath());
        }
        final long lc0 = lifecycles;
        try {
            slot.inst = openInstance(slot, true);
        } catch (final RuntimeException e) {
            taskError(slot, new IllegalStateException("restore: " + e, e));
            return;
        }
        final StateRestoreCallback cb = slot.inst.ctx.takeRestoreCallback();
        if (!(cb instanceof RecordBatchingStateRestoreCallback)) {
            throw new IllegalStateException(slot.name() + " registered no batching restore callback: " + cb);
        }
        final RecordBatchingStateRestoreCallback batching = (RecordBatchingStateRestoreCallback) cb;
        final boolean window = job.store.equals("window");
        final boolean timestamped = !job.store.equals("kv");
        final long minTs = window && slot.maxTs != Long.MIN_VALUE
            ? slot.maxTs - job.retentionMs - job.additionalRetentionMs : Long.MIN_VALUE;
        final String topic = "app-" + slot.name() + "-changelog";
        final List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>(job.restoreBatchRecords);
        final long[] n = {0};
        if (slot.log != null) {
            try {
                slot.log.replay((offset, key, ts, ver) -> {
                    if (ts < minTs) {
                        return;
                    }
                    final byte[] k = key.getBytes(StandardCharsets.US_ASCII);
                    byte[] v = RecordValue.of(job.seed, job.valueBytes, slot.task, slot.idx, key, ts, ver);
                    if (timestamped) {
                        v = withTimestamp(ts, v);
                    }
                    final byte[] storeKey = window ? WindowKeySchema.toStoreKeyBinary(Bytes.wrap(k), ts, 0).get() : k;
                    batch.add(new ConsumerRecord<>(topic, slot.task, offset, storeKey, v));
                    if (batch.size() >= job.restoreBatchRecords) {
                        batching.restoreBatch(batch);
                        n[0] += batch.size();
                        batch.clear();
                    }
                });
                if (!batch.isEmpty()) {
                    batching.restoreBatch(batch);
                    n[0] += batch.size();
                }
            } catch (final RuntimeException e) {
                taskError(slot, new IllegalStateException("restore: " + e, e));
            }
        }
        restoreLifecycles += lifecycles - lc0;
        restoredRecords += n[0];
        restores++;
        restoreTimes.add(System.nanoTime() - t0);
    }

    static byte[] withTimestamp(final long ts, final byte[] v) {
        return ByteBuffer.allocate(8 + v.length).putLong(ts).put(v).array();
    }

    @SuppressWarnings("unchecked")
    private void put(final Slot slot, final String key, final long ts, final long ver) throws IOException {
        final Instance inst = slot.inst;
        if (inst == null) {
            return; // a store that could not be opened
        }
        final byte[] value = RecordValue.of(job.seed, job.valueBytes, slot.task, slot.idx, key, ts, ver);
        final Bytes k = Bytes.wrap(key.getBytes(StandardCharsets.US_ASCII));
        try {
            switch (job.store) {
                case "window":
                    ((WindowStore<Bytes, byte[]>) inst.store).put(k, withTimestamp(ts, value), ts);
                    break;
                case "migrating":
                    ((KeyValueStore<Bytes, byte[]>) inst.store).put(k, withTimestamp(ts, value));
                    break;
                default:
                    ((KeyValueStore<Bytes, byte[]>) inst.store).put(k, value);
            }
        } catch (final RuntimeException e) {
            writeFailed++;
            taskError(slot, e);
            return;
        }
        slot.changelog().append(key, ts, ver);
        slot.maxTs = Math.max(slot.maxTs, ts);
        records++;
    }

    /** get or range (Reads) on the slot's open store, skipped when it is not open; a failed read is a task error. */
    private void read(final Slot slot, final String kind, final JsonNode op) throws Job.BadInput {
        if (slot.inst == null) {
            return;
        }
        try {
            if (kind.equals("get")) {
                Reads.get(slot.inst.store, job.store, text(op, "key"), num(op, "ts"));
            } else {
                Reads.scan(slot.inst.store, job.store);
            }
        } catch (final RuntimeException e) {
            taskError(slot, e);
        }
    }

    /**
     * commit: every open store of the task commits its changelog offsets (the records appended, spread over
     * changelog_partitions offset keys), with no flush (Kafka 4.3's StateStore.commit(Map), KIP-1035); the task's
     * stores are disarmed first. Kafka 4.0 to 4.2 have no commit(Map): their task commit flushes every store
     * (ProcessorStateManager.flush calls StateStore.flush(); RocksDBStore.flush flushes the memtable to an SST
     * file) and writes the offsets to the task's .checkpoint file, which is the state manager's, not the store's,
     * and is not written here.
     */
    private void commit(final int task) throws Exception {
        for (final Slot s : slots[task]) {
            if (s.inst == null) {
                continue;
            }
            s.inst.armed = false;
            final Map<TopicPartition, Long> offsets = new HashMap<>();
            final long end = s.log == null ? 0 : s.log.size();
            final String topic = "app-" + s.name() + "-changelog";
            for (int p = 0; p < job.changelogPartitions; p++) {
                offsets.put(new TopicPartition(topic, p),
                    end / job.changelogPartitions + (p < end % job.changelogPartitions ? 1 : 0));
            }
            commitStore(s.inst.store, offsets);
        }
    }

    /** StateStore.commit(Map) where the Kafka jar has it (4.3 on), else null: the store is flushed (4.0 to 4.2). */
    private static final Method COMMIT = commitMethod();

    private static Method commitMethod() {
        try {
            return StateStore.class.getMethod("commit", Map.class);
        } catch (final NoSuchMethodException e) {
            return null;
        }
    }

    @SuppressWarnings("deprecation")
    private static void commitStore(final StateStore store, final Map<TopicPartition, Long> offsets) throws Exception {
        if (COMMIT == null) {
            store.flush();
            return;
        }
        try {
            COMMIT.invoke(store, offsets);
        } catch (final java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof Exception) {
                throw (Exception) e.getCause();
            }
            throw e;
        }
    }

    /** Closes a slot's store as Kafka closes it; with mayFail false, any arm is dropped first (a reaction). */
    private void closeSlot(final Slot slot, final boolean mayFail) {
        final Instance inst = slot.inst;
        if (inst == null) {
            return;
        }
        if (!mayFail) {
            inst.armed = false;
        }
        slot.inst = null;
        inst.store.close();
    }

    /** Closes every store (no fault) and the changelogs: the end of a run. */
    void closeAll() throws IOException {
        for (final Slot[] task : slots) {
            for (final Slot s : task) {
                closeSlot(s, false);
                if (s.log != null) {
                    s.log.close();
                }
            }
        }
    }

    /** RocksDB's own figures summed over the open DBs: memtables, table readers, block cache; and their count. */
    long[] rocksdbFigures() {
        long mem = 0, readers = 0, cache = 0;
        int n = 0;
        for (final RocksDB db : new ArrayList<>(openDbs.keySet())) {
            if (!db.isOwningHandle()) {
                openDbs.remove(db); // closed on a path the hooks do not see (a failed open's cleanup)
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

    /** The records store (task, idx) holds now, read through all(); -1 when it is not open (for tests). */
    long scanRecords(final int task, final int idx) {
        final Slot s = slots[task][idx];
        return s.inst == null ? -1 : Reads.scan(s.inst.store, job.store);
    }

    /** The DBs open now (for tests). */
    List<RocksDB> openDbList() {
        openDbs.keySet().removeIf(db -> !db.isOwningHandle());
        return new ArrayList<>(openDbs.keySet());
    }

    int openDbCount() {
        openDbs.keySet().removeIf(db -> !db.isOwningHandle());
        return openDbs.size();
    }

    /** Median and a distribution-free 95% interval for it, as the Go harness's restoreStats: p50, low, high, max. */
    long[] restoreStats() {
        if (restoreTimes.isEmpty()) {
            return new long[] {0, 0, 0, 0};
        }
        final List<Long> s = new ArrayList<>(restoreTimes);
        Collections.sort(s);
        final int n = s.size();
        final long p50 = s.get((n - 1) / 2);
        final long max = s.get(n - 1);
        final int j = medianRank(n, 0.025);
        long lo = 0, hi = 0;
        if (j > 0) {
            lo = s.get(j - 1);
            hi = s.get(n - j);
        }
        return new long[] {p50, lo, hi, max};
    }

    /** The largest rank j with P(Binomial(n, 1/2) < j) <= a (harness.medianRank). */
    static int medianRank(final int n, final double a) {
        double cdf = 0;
        int j = 0;
        for (int k = 0; k < n; k++) {
            cdf += Math.exp(lgammaInt(n) - lgammaInt(k) - lgammaInt(n - k) - n * Math.log(2));
            if (cdf > a) {
                break;
            }
            j = k + 1;
        }
        return j;
    }

    private static double lgammaInt(final int x) { // log(x!)
        double s = 0;
        for (int i = 2; i <= x; i++) {
            s += Math.log(i);
        }
        return s;
    }

    static void deleteTree(final Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> w = Files.walk(p)) {
            for (final Path q : (Iterable<Path>) w.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(q);
            }
        }
    }
}
