package dev.rocksleak.child;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.StateStore;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;

/**
 * The RocksDB instances of an application's stores, which Kafka's own store classes open inside the user's
 * TopologyTestDriver (the child captures nothing there, as it does for a scenario's stores: Instance): found by
 * walking each of the driver's state stores ({@code TopologyTestDriver.getAllStateStores()}) through the fields that
 * hold another state store, a store's segments ({@code AbstractSegments}, whose segments are stores), a map or
 * collection of stores, or a {@code RocksDB} ({@code RocksDBStore.db}), and so every layer Kafka wraps a store in,
 * every store type built on {@code RocksDBStore} and every live segment of a window or versioned store.
 *
 * <p>Each instance seen once goes to the ledger as a {@code db} and its RocksJava {@code defaultReadOptions_} as a
 * {@code read_options} (RocksDB.close() does not close it: facebook/rocksdb#15069, open), as a scenario's do. With
 * the read-options fix (the {@code kafka-<version>+read-options-fix} model), the read options of an instance seen
 * closed are closed at the next look, as that fix would at the instance's close. The run looks after each step and
 * after the driver's close, so an instance opened and closed within one step (a segment that expires in the step
 * that made it) is not seen: the ledger then counts fewer, never more.
 */
final class AppStores {
    /** How deep a store's fields are followed (wrappers, segments, their maps): Kafka's deepest is about 6. */
    private static final int MAX_DEPTH = 12;
    private static final Class<?> SEGMENTS = segmentsClass();

    private final Ledger ledger;
    private final boolean readOptionsFix;
    private final Set<RocksDB> seen = Collections.newSetFromMap(new WeakHashMap<>());
    private final List<RocksDB> toFix = new ArrayList<>();
    private final Map<Class<?>, List<Field>> fields = new HashMap<>();

    AppStores(final Ledger ledger, final boolean readOptionsFix) {
        this.ledger = ledger;
        this.readOptionsFix = readOptionsFix;
    }

    /** Looks at the driver's stores: every RocksDB instance not seen before goes to the ledger. */
    void look(final TopologyTestDriver driver) {
        final Set<Object> visited = Collections.newSetFromMap(new IdentityHashMap<>());
        for (final StateStore s : driver.getAllStateStores().values()) {
            walk(s, 0, visited);
        }
        fixClosed();
    }

    /** After the driver's close: the read-options fix closes what the closed instances left. */
    void closed() {
        fixClosed();
    }

    private void found(final RocksDB db) {
        if (!seen.add(db)) {
            return;
        }
        ledger.track(Ledger.DB, db);
        ledger.track(Ledger.READ_OPTIONS, Instance.defaultReadOptions(db));
        if (readOptionsFix) {
            toFix.add(db);
        }
    }

    private void fixClosed() {
        for (final Iterator<RocksDB> it = toFix.iterator(); it.hasNext(); ) {
            final RocksDB db = it.next();
            if (!db.isOwningHandle()) {
                final ReadOptions ro = Instance.defaultReadOptions(db);
                if (ro != null) {
                    ro.close();
                }
                it.remove();
            }
        }
    }

    private void walk(final Object o, final int depth, final Set<Object> visited) {
        if (o == null || depth > MAX_DEPTH || !visited.add(o)) {
            return;
        }
        if (o instanceof RocksDB) {
            found((RocksDB) o);
            return;
        }
        if (o instanceof Map || o instanceof Collection) {
            // A map or collection of stores or segments (AbstractSegments' segments) holds nothing else; one of other
            // things (an in-memory store's records, a store's open iterators) is left at its first element, so that
            // a look never walks a store's data.
            final Collection<?> c = o instanceof Map ? ((Map<?, ?>) o).values() : (Collection<?>) o;
            final Iterator<?> it = c.iterator();
            if (it.hasNext() && followed(it.next())) {
                for (final Object v : c) {
                    walk(v, depth + 1, visited);
                }
            }
            return;
        }
        for (final Field f : fields(o.getClass())) {
            final Object v;
            try {
                v = f.get(o);
            } catch (final IllegalAccessException e) {
                continue;
            }
            if (v instanceof RocksDB || followed(v) || v instanceof Map || v instanceof Collection) {
                walk(v, depth + 1, visited);
            }
        }
    }

    /** A state store or a store's segments: what the walk goes into from a map or collection. */
    private static boolean followed(final Object v) {
        return v instanceof StateStore || v instanceof RocksDB || SEGMENTS != null && SEGMENTS.isInstance(v);
    }

    /**
     * The instance fields of a store or segments class (and its superclasses) that can hold a RocksDB, a store, its
     * segments or a map or collection of them, made accessible; cached per class.
     */
    private List<Field> fields(final Class<?> c) {
        return fields.computeIfAbsent(c, k -> {
            final List<Field> out = new ArrayList<>();
            if (!(StateStore.class.isAssignableFrom(k) || SEGMENTS != null && SEGMENTS.isAssignableFrom(k))) {
                return out;
            }
            for (Class<?> x = k; x != null && x != Object.class; x = x.getSuperclass()) {
                for (final Field f : x.getDeclaredFields()) {
                    final Class<?> t = f.getType();
                    if (Modifier.isStatic(f.getModifiers()) || t.isPrimitive() || t.isArray()) {
                        continue;
                    }
                    if (RocksDB.class.isAssignableFrom(t) || StateStore.class.isAssignableFrom(t)
                        || Map.class.isAssignableFrom(t) || Collection.class.isAssignableFrom(t)
                        || SEGMENTS != null && SEGMENTS.isAssignableFrom(t) || t == Object.class) {
                        try {
                            f.setAccessible(true);
                            out.add(f);
                        } catch (final RuntimeException e) {
                            // a field the module system keeps closed: not Kafka's stores' (the classpath's)
                        }
                    }
                }
            }
            return out;
        });
    }

    /** Kafka's segments interface (package-private in org.apache.kafka.streams.state.internals), or null. */
    private static Class<?> segmentsClass() {
        try {
            return Class.forName("org.apache.kafka.streams.state.internals.Segments", false,
                AppStores.class.getClassLoader());
        } catch (final ClassNotFoundException e) {
            return null;
        }
    }
}
