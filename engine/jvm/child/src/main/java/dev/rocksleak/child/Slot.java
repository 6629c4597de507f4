package dev.rocksleak.child;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;

/** One logical store of a task: its open instance, its directory generation and its changelog. */
final class Slot {
    final int task, idx;
    private final File root;
    private final Path changelogRoot;
    int gen;
    Instance inst;
    Changelog log;
    long maxTs = Long.MIN_VALUE; // the latest record timestamp appended
    boolean wiped;

    /** A slot whose task directories live under root and whose changelog lives under changelogRoot. */
    Slot(final int task, final int idx, final File root, final Path changelogRoot) {
        this.task = task;
        this.idx = idx;
        this.root = root;
        this.changelogRoot = changelogRoot;
    }

    String name() {
        return "store-" + idx;
    }

    File taskDir() {
        return new File(root, "task-" + task + File.separator + "gen-" + gen);
    }

    /**
     * The RocksDB directory of the slot's key-value store (kind kv or migrating): RocksDBStore.openDB's
     * {@code new File(new File(stateDir, parentDir), name)}, the parent directory "rocksdb" (RocksDBStore(name,
     * "rocksdb"), as Kafka's key-value store suppliers build it).
     */
    File keyValueDbDir() {
        return new File(new File(taskDir(), "rocksdb"), name());
    }

    Changelog changelog() throws IOException {
        if (log == null) {
            log = new Changelog(changelogRoot.resolve("task-" + task).resolve("store-" + idx + ".log"));
        }
        return log;
    }
}
