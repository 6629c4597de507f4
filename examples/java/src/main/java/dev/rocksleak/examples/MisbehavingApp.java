package dev.rocksleak.examples;

import java.lang.reflect.Field;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;

import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * KeyValueApp that misbehaves at its third step as {@code example.misbehave} says: {@code throw} an exception,
 * {@code exit} (System.exit), {@code hang} (sleeps forever), {@code allocate} (native memory, 64 MiB a step, touched
 * and never freed). rocksleak must contain each and name this class's frames (docs/your-application.md).
 */
public class MisbehavingApp extends KeyValueApp {
    private String how = "";
    private final List<Long> kept = new ArrayList<>();

    @Override
    public Topology topology(final Properties props) {
        how = props.getProperty("example.misbehave", "");
        return super.topology(props);
    }

    @Override
    public int pipe(final TopologyTestDriver driver, final long step, final Instant streamTime, final Random random) {
        if (step >= 2) {
            misbehave();
        }
        return super.pipe(driver, step, streamTime, random);
    }

    private void misbehave() {
        switch (how) {
            case "throw":
                throw new IllegalArgumentException("the application's own bug");
            case "exit":
                System.exit(3);
                break;
            case "hang":
                while (true) {
                    try {
                        Thread.sleep(1000);
                    } catch (final InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            case "allocate":
                final sun.misc.Unsafe u = unsafe();
                final long size = 64L << 20;
                final long p = u.allocateMemory(size);
                u.setMemory(p, size, (byte) 1);
                kept.add(p);
                break;
            default:
                break;
        }
    }

    private static sun.misc.Unsafe unsafe() {
        try {
            final Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (final ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
