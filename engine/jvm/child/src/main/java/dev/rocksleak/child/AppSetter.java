package dev.rocksleak.child;

import java.lang.reflect.Field;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.Options;
import org.rocksdb.RocksObject;
import org.rocksdb.TableFormatConfig;

/**
 * The config setter Kafka instantiates for every RocksDB instance it opens under the user's application
 * ({@code rocksdb.config.setter} points here; the user's own setter class is in {@link #USER_SETTER}). Kafka's
 * {@code RocksDBStore.openDB} calls {@link #setConfig} after its own table config, cache and filter, and
 * {@code RocksDBStore.close} calls {@link #close}; each delegates to a new instance of the user's setter, made the
 * way Kafka makes it ({@code Utils.newInstance}: one per store instance), so the user's code runs where and when it
 * runs in production. Around it this counts the opens and closes (a window segment's name is its store's name, a
 * dot and the segment id) and, after the user's setConfig, captures what the options now hold that a setter
 * builds with {@code new}: the table config's block cache and filter policy, and the write buffer manager. The
 * ledger counts those objects once each (a shared cache is one object) while they own their native handle.
 */
public final class AppSetter implements RocksDBConfigSetter {
    /** The app config key holding the user's own setter class (a name or a Class), set by the child. */
    public static final String USER_SETTER = "rocksleak.user.config.setter";

    static final AtomicLong OPENS = new AtomicLong();
    static final AtomicLong SEGMENT_OPENS = new AtomicLong();
    static final AtomicLong CLOSES = new AtomicLong();
    /** The ledger the captured objects go to (the run's); null: capture nothing. */
    static volatile Ledger ledger;
    private static final Set<RocksObject> SEEN = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The block cache of every store's options, by store name (a segment's under its store's name), the last. */
    private static final Map<String, Cache> CACHE_OF = new HashMap<>();
    /** Every block cache captured, each once, with what {@link #caches} knows of it. */
    private static final Map<Cache, Seen> CACHES = new IdentityHashMap<>();
    private static final Set<String> SEGMENTED = new HashSet<>();

    private RocksDBConfigSetter user;
    /** The block cache this store instance's options held after setConfig (null: none captured). */
    private Cache cache;

    /** What caches() knows of one captured cache. */
    private static final class Seen {
        /** Its capacity once Kafka's metric has reported it, else -1. */
        long capacity = -1;
        /** The store instances (stores and segments) given it by setConfig and not yet closed. */
        int users;
        /** Its usage read while no store instance had it, or -1: it changes only while a RocksDB uses it. */
        long idleUsage = -1;
    }

    @Override
    public void setConfig(final String storeName, final Options options, final Map<String, Object> configs) {
        OPENS.incrementAndGet();
        if (storeName.matches(".*\\.\\d+$")) {
            SEGMENT_OPENS.incrementAndGet();
        }
        final Object cls = configs.get(USER_SETTER);
        if (cls != null) {
            user = newUserSetter(cls);
            user.setConfig(storeName, options, configs);
        }
        cache = capture(storeName, options);
    }

    @Override
    public void close(final String storeName, final Options options) {
        CLOSES.incrementAndGet();
        try {
            if (user != null) {
                user.close(storeName, options);
            }
        } finally {
            released(cache);
            cache = null;
        }
    }

    /** Instantiates the user's setter from its class or its name, through the context class loader (the app's). */
    static RocksDBConfigSetter newUserSetter(final Object cls) {
        try {
            final Class<?> c = cls instanceof Class ? (Class<?>) cls
                : Class.forName(cls.toString().trim(), true, Thread.currentThread().getContextClassLoader());
            return (RocksDBConfigSetter) c.getDeclaredConstructor().newInstance();
        } catch (final ReflectiveOperationException e) {
            throw new IllegalStateException("rocksdb.config.setter " + cls + ": " + e, e);
        }
    }

    /** Captures what the options hold (see the class comment); returns their block cache, or null. */
    private static Cache capture(final String storeName, final Options options) {
        final Ledger l = ledger;
        if (l == null) {
            return null;
        }
        Cache captured = null;
        final TableFormatConfig t = options.tableFormatConfig();
        if (t instanceof BlockBasedTableConfig) {
            final Object cache = field(BlockBasedTableConfig.class, t, "blockCache");
            if (cache instanceof Cache) {
                captured = (Cache) cache;
                remember(storeName, captured);
            }
            track(l, "cache", cache);
            track(l, "filter", field(BlockBasedTableConfig.class, t, "filterPolicy"));
        }
        track(l, "write_buffer_manager", writeBufferManager(options));
        return captured;
    }

    private static synchronized void remember(final String storeName, final Cache cache) {
        final String store = storeName.replaceFirst("\\.\\d+$", "");
        if (!store.equals(storeName)) {
            SEGMENTED.add(store);
        }
        CACHE_OF.put(store, cache);
        final Seen seen = CACHES.computeIfAbsent(cache, c -> new Seen());
        seen.users++;
        seen.idleUsage = -1;
    }

    /** A store instance given cache by setConfig is closing: one user fewer, its usage to be read afresh. */
    private static synchronized void released(final Cache cache) {
        final Seen seen = cache == null ? null : CACHES.get(cache);
        if (seen != null) {
            seen.users = Math.max(seen.users - 1, 0);
            seen.idleUsage = -1;
        }
    }

    /**
     * Records the capacity of the block cache of the store named {@code store} from Kafka's block-cache-capacity
     * metric, tagged with the store's name. A segmented store's metric sums its segments' caches when they are not
     * one, so its capacity is not recorded: no one cache's.
     */
    static synchronized void capacity(final String store, final long capacity) {
        final Cache c = CACHE_OF.get(store);
        final Seen seen = c == null ? null : CACHES.get(c);
        if (seen != null && capacity > 0 && !SEGMENTED.contains(store)) {
            seen.capacity = capacity;
        }
    }

    /**
     * The block caches captured that still own their native cache, each counted once however many stores share
     * it: {how many, their summed usage (Cache.getUsage), their summed capacity where known}. A cache Kafka or a
     * setter closed with its store is not counted (and forgotten); one a setter shares (or leaks) is, between task
     * lives too.
     *
     * <p>A cache no open store instance uses is read once after its last user closed, and that figure is kept until
     * a store is given it again: nothing inserts into a cache no RocksDB uses (RocksJava's Cache has no insert), so
     * its usage cannot move. Reading it at every sample cost each sample O(live caches) shard-locked reads: with the
     * leaky setter's cache per open, 38% of a sample's CPU time at 600 task lives (async-profiler, 2026-12-06).
     */
    static synchronized long[] caches() {
        long n = 0, usage = 0, capacity = 0;
        for (final Iterator<Map.Entry<Cache, Seen>> it = CACHES.entrySet().iterator(); it.hasNext();) {
            final Map.Entry<Cache, Seen> e = it.next();
            if (!e.getKey().isOwningHandle()) {
                it.remove();
                continue;
            }
            final Seen seen = e.getValue();
            n++;
            if (seen.users > 0) {
                usage += e.getKey().getUsage();
            } else {
                if (seen.idleUsage < 0) {
                    seen.idleUsage = e.getKey().getUsage();
                }
                usage += seen.idleUsage;
            }
            capacity += Math.max(seen.capacity, 0);
        }
        return new long[] {n, usage, capacity};
    }

    private static synchronized void track(final Ledger l, final String kind, final Object o) {
        if (o instanceof RocksObject && SEEN.add((RocksObject) o)) {
            l.track(kind, (RocksObject) o);
        }
    }

    private static Object field(final Class<?> c, final Object o, final String name) {
        try {
            final Field f = c.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(o);
        } catch (final ReflectiveOperationException | RuntimeException e) {
            return null; // this RocksJava has no such field: nothing captured
        }
    }

    private static Object writeBufferManager(final Options options) {
        // Kafka's options adapter delegates to a DBOptions, which keeps the manager in writeBufferManager_.
        for (Class<?> c = options.getClass(); c != null; c = c.getSuperclass()) {
            for (final Field f : c.getDeclaredFields()) {
                if (f.getType() == org.rocksdb.DBOptions.class) {
                    final Object db = fieldOf(f, options);
                    return db == null ? null : field(org.rocksdb.DBOptions.class, db, "writeBufferManager_");
                }
            }
        }
        return field(Options.class, options, "writeBufferManager_");
    }

    private static Object fieldOf(final Field f, final Object o) {
        try {
            f.setAccessible(true);
            return f.get(o);
        } catch (final ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
