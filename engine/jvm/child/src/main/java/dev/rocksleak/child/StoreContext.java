package dev.rocksleak.child;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;

/**
 * The context a task's stores are initialised with: kafka-streams-test-utils' MockProcessorContext
 * (getStateStoreContext(): task id, state directory, configs, Streams metrics), seen through Kafka's
 * InternalProcessorContext, which the segmented stores require (AbstractRocksDBSegmentedBytesStore.init casts to
 * it). A dynamic proxy answers the state-store methods from the mock, takes the restore callback a store registers
 * (the child drives the restore itself, as the task's state manager would), has no record metadata (no position
 * updates), and fails naming any other internal method a Kafka version calls.
 */
final class StoreContext {
    private final StateStoreContext mock;
    private final InternalProcessorContext<?, ?> context;
    private StateRestoreCallback restoreCallback;

    StoreContext(final int task, final File taskDir, final boolean exactlyOnce) {
        this(task, taskDir, exactlyOnce, Map.of());
    }

    /**
     * A context whose app configs (StateStoreContext.appConfigs(), what RocksDBStore.openDB reads, among them
     * {@code rocksdb.config.setter}) hold the child's base configs plus appConfigs.
     */
    @SuppressWarnings("deprecation")
    StoreContext(final int task, final File taskDir, final boolean exactlyOnce, final Map<String, Object> appConfigs) {
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "rocksleak");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092"); // never contacted
        p.put(StreamsConfig.STATE_DIR_CONFIG, taskDir.getParentFile().getAbsolutePath());
        p.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "INFO");
        if (exactlyOnce) {
            p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        }
        p.putAll(appConfigs);
        this.mock = new MockProcessorContext<>(p, new TaskId(0, task), taskDir).getStateStoreContext();
        this.context = (InternalProcessorContext<?, ?>) Proxy.newProxyInstance(StoreContext.class.getClassLoader(),
            new Class<?>[] {InternalProcessorContext.class}, (proxy, m, args) -> invoke(m, args));
    }

    InternalProcessorContext<?, ?> context() {
        return context;
    }

    /** The restore callback the last store initialised with this context registered (null if none). */
    StateRestoreCallback takeRestoreCallback() {
        final StateRestoreCallback cb = restoreCallback;
        restoreCallback = null;
        return cb;
    }

    private Object invoke(final Method m, final Object[] args) throws Throwable {
        switch (m.getName()) {
            case "register":
                restoreCallback = (StateRestoreCallback) args[1];
                return null;
            case "recordMetadata":
                return Optional.empty();
            case "recordContext":
                return null;
            case "currentSystemTimeMs":
                return System.currentTimeMillis();
            case "metrics":
                return mock.metrics();
            case "hashCode":
                return System.identityHashCode(context);
            case "equals":
                return args[0] == context;
            case "toString":
                return "rocksleak store context " + mock.taskId();
            default:
                break;
        }
        final Method same;
        try {
            same = StateStoreContext.class.getMethod(m.getName(), m.getParameterTypes());
        } catch (final NoSuchMethodException e) {
            throw new UnsupportedOperationException("the JVM child's store context has no " + m.getName()
                + " (InternalProcessorContext); this Kafka version's stores need it");
        }
        try {
            return same.invoke(mock, args);
        } catch (final InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
