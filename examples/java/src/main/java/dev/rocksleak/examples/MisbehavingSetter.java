package dev.rocksleak.examples;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;

/**
 * A config setter that throws, and puts every config it was given in its message, secrets included: rocksleak must
 * mark the run, name this frame, and write none of the secrets (docs/your-application.md).
 */
public class MisbehavingSetter implements RocksDBConfigSetter {
    @Override
    public void setConfig(final String storeName, final Options options, final Map<String, Object> configs) {
        throw new IllegalStateException("cannot configure " + storeName + " with " + configs);
    }

    @Override
    public void close(final String storeName, final Options options) {
    }
}
