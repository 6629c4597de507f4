package dev.rocksleak.child;

import java.lang.reflect.Field;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
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

    private RocksDBConfigSetter user;

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
        capture(options);
    }

    @Override
    public void close(final String storeName, final Options options) {
        CLOSES.incrementAndGet();
        if (user != null) {
            user.close(storeName, options);
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

    private static void capture(final Options options) {
        final Ledger l = ledger;
        if (l == null) {
            return;
        }
        final TableFormatConfig t = options.tableFormatConfig();
        if (t instanceof BlockBasedTableConfig) {
            track(l, "cache", field(BlockBasedTableConfig.class, t, "blockCache"));
            track(l, "filter", field(BlockBasedTableConfig.class, t, "filterPolicy"));
        }
        track(l, "write_buffer_manager", writeBufferManager(options));
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
