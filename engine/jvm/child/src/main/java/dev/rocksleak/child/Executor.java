package dev.rocksleak.child;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.rocksleak.child.OpFields.num;
import static dev.rocksleak.child.OpFields.text;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.RocksleakStores;
import org.rocksdb.RocksDB;

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

    final Job job;
    final boolean instrumented;
    final Ledger ledger;
    private final File root;
    private final Path changelogRoot;
    final Slot[][] slots;
    /** The RocksDB instances open now, as the stores' hooks report them (Instance). */
    final OpenDbs openDbs = new OpenDbs();
    private final long begin = System.nanoTime();

    long steps, lifecycles, failedCloses, initFailures, records, rebalances, taskErrors, restores, restoredRecords,
        restoreLifecycles;
    /** Records whose put the store refused (the Go engine's records_write_failed: Kafka reprocesses them). */
    long writeFailed;
    private final TaskErrorTally tally = new TaskErrorTally();
    /** The distinct task errors, at most 5 (TaskErrorTally), and how many task errors had each. */
    final List<String> taskErrorExamples = tally.examples;
    final List<Long> taskErrorCounts = tally.counts;
    /** The stores' app configs beyond the context's base ones (rocksdb.config.setter when bounded memory is on). */
    final Map<String, Object> appConfigs = new HashMap<>();
    /** Task errors whose cause chain names a storage fault, by fault (schema.StorageFaults' words). */
    final Map<String, Long> storageFaults = tally.storageFaults;
    private final RestoreTimes restoreTimes = new RestoreTimes();
    /** Run at the end of each restore that opened its store, its scratch still held (tests read the native heap). */
    Runnable atRestoreEnd = () -> { };
    /** The first close-time status-write error seen (for the docs and tests). */
    String firstCloseError;
    /** The first RocksDB error that refused an open whose LOCK a LockHolder held (InitTries; docs and tests). */
    String firstInitError;

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
        slots = new Slot[job.tasks][job.storesPerTask];
        for (int t = 0; t < job.tasks; t++) {
            for (int s = 0; s < job.storesPerTask; s++) {
                slots[t][s] = new Slot(t, s, root, changelogRoot);
            }
        }
    }

    long elapsedNs() {
        return System.nanoTime() - begin;
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
                if (fails > 0 && job.store.equals("window")) {
                    throw new UnsupportedOperationException("op open with init_failures > 0 on a window store (jvm.go)");
                }
                open(slot(op), fails);
                return Stop.NONE;
            }
            case "put":
                if (op.path("init_failures").asInt(0) > 0) {
                    throw new UnsupportedOperationException("op put with init_failures > 0: a segment's (jvm.go)");
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

    /**
     * seed_old: every key written once in the pre-upgrade format (a plain RocksDBStore's values), timestamp 0,
     * version 0, so that the timestamped store opens with old data and Kafka's dual accessor serves it. Setup: not
     * counted; the records go to the changelog.
     */
    private void seedOld(final Slot slot) throws IOException {
        final Instance inst = new Instance(this, slot, false);
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

    /**
     * open: the slot's store, its first initFailures tries refused by RocksDB and retried (InitTries), as the Go
     * engine's retryInit; when every try fails, a task error and a restore into a fresh directory (the Go engine's
     * open). A wiped slot is restored instead, its restore's opens taking the failures.
     */
    private void open(final Slot slot, final int initFailures) throws IOException {
        if (slot.inst != null) {
            return;
        }
        if (slot.wiped) {
            slot.wiped = false;
            restore(slot, false, initFailures);
            return;
        }
        try {
            slot.inst = InitTries.open(this, slot, initFailures, appConfigs);
        } catch (final RuntimeException e) {
            if (isTaskCorrupted(e)) {
                corruptTask(slot);
            } else {
                taskError(slot, e);
                restore(slot, true, 0);
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
        restore(slot, false, 0);
        for (final Slot o : reopen) {
            restore(o, false, 0);
        }
    }

    void taskError(final Slot slot, final Throwable e) {
        taskErrors++;
        tally.add(slot, e);
    }

    /**
     * Restores a slot's store from its changelog: wiped (or moved to a fresh directory), opened empty (a window
     * store at stream time -1) and fed the changelog in restore batches through the callback the store registered
     * (ChangelogFeed), as the restore consumer would: a window store's batches advance its stream time, creating and
     * expiring segments (counted apart as restore lifecycles). The open's first initFailures tries are refused
     * (InitTries). The scenario's restore scratch (RestoreScratch) is held from its start to its end, failed or not.
     */
    private void restore(final Slot slot, final boolean moveAway, final int initFailures) throws IOException {
        try (RestoreScratch scratch = RestoreScratch.hold(job.restoreScratchBytes)) {
            final long t0 = System.nanoTime();
            if (moveAway) {
                slot.gen++;
            } else {
                deleteTree(new File(slot.taskDir(), slot.name()).toPath());
            }
            final long lc0 = lifecycles;
            try {
                slot.inst = InitTries.open(this, slot, initFailures, appConfigs);
            } catch (final RuntimeException e) {
                taskError(slot, new IllegalStateException("restore: " + e, e));
                return;
            }
            final StateRestoreCallback cb = slot.inst.ctx.takeRestoreCallback();
            if (!(cb instanceof RecordBatchingStateRestoreCallback)) {
                throw new IllegalStateException(slot.name() + " registered no batching restore callback: " + cb);
            }
            final ChangelogFeed feed = new ChangelogFeed(job, slot, (RecordBatchingStateRestoreCallback) cb);
            if (slot.log != null) {
                try {
                    feed.run();
                } catch (final RuntimeException e) {
                    taskError(slot, new IllegalStateException("restore: " + e, e));
                }
            }
            restoreLifecycles += lifecycles - lc0;
            restoredRecords += feed.restored;
            restores++;
            restoreTimes.add(System.nanoTime() - t0, feed.restored);
            atRestoreEnd.run();
        }
    }

    @SuppressWarnings("unchecked")
    void put(final Slot slot, final String key, final long ts, final long ver) throws IOException {
        final Instance inst = slot.inst;
        if (inst == null) {
            return; // a store that could not be opened
        }
        final byte[] value = RecordValue.of(job.seed, job.valueBytes, slot.task, slot.idx, key, ts, ver);
        final Bytes k = Bytes.wrap(key.getBytes(StandardCharsets.US_ASCII));
        try {
            switch (job.store) {
                case "window":
                    ((WindowStore<Bytes, byte[]>) inst.store).put(k, RecordValue.withTimestamp(ts, value), ts);
                    break;
                case "migrating":
                    ((KeyValueStore<Bytes, byte[]>) inst.store).put(k, RecordValue.withTimestamp(ts, value));
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
            StoreCommit.commit(s.inst.store, offsets);
        }
    }

    /** Closes a slot's store as Kafka closes it; with mayFail false, any arm is dropped first (a reaction). */
    void closeSlot(final Slot slot, final boolean mayFail) {
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
        return openDbs.figures();
    }

    /** The records store (task, idx) holds now, read through all(); -1 when it is not open (for tests). */
    long scanRecords(final int task, final int idx) {
        final Slot s = slots[task][idx];
        return s.inst == null ? -1 : Reads.scan(s.inst.store, job.store);
    }

    /** The DBs open now (for tests). */
    List<RocksDB> openDbList() {
        return openDbs.list();
    }

    int openDbCount() {
        return openDbs.count();
    }

    /** The restores' durations and records, one by one. */
    RestoreTimes restoreTimes() {
        return restoreTimes;
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
