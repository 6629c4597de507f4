package dev.rocksleak.child;

import java.util.function.Supplier;

import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksObject;
import org.rocksdb.RocksDB;

/**
 * What one offsets column-family options object costs in C memory on the rocksdbjni on the classpath: n objects
 * built as Kafka 4.3.0's static createOffsetsCFOptions() builds them (and as 4.3.1's openDB does), the C allocator's
 * bytes in use read before and after (the Sampler's native heap), then the same after closing them. Then the same for
 * RocksJava's {@code ReadOptions}, as {@code new RocksDB(handle)} builds its {@code defaultReadOptions_} (a plain
 * {@code new ReadOptions()}, which RocksDB.close() never closes): what each opened DB leaves behind.
 *
 * <p>{@code java -cp build/jvm/rocksleak-child.jar:$(cat build/jvm/classpath-4.3.0.txt) dev.rocksleak.child.OptionsProbe [n]}
 */
public final class OptionsProbe {
    private OptionsProbe() {
    }

    public static void main(final String[] args) {
        RocksDB.loadLibrary();
        final int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        final Sampler s = new Sampler("glibc");
        for (int i = 0; i < 50; i++) {
            build(true).close(); // warm the allocator and the JNI paths
        }
        for (final boolean v430 : new boolean[] {true, false}) {
            final double[] b = perObject(s, n, () -> build(v430));
            System.out.printf("rocksdbjni %s, offsets-CF options as %s builds them: %.0f B each while owned, "
                    + "%.0f B each after close (%d objects; native heap)%n", RocksDB.rocksdbVersion(),
                v430 ? "4.3.0's createOffsetsCFOptions()" : "4.3.1's openDB", b[0], b[1], n);
        }
        final double[] b = perObject(s, n, ReadOptions::new);
        System.out.printf("rocksdbjni %s, ReadOptions as RocksDB's constructor builds defaultReadOptions_: %.0f B each "
            + "while owned, %.0f B each after close (%d objects; native heap)%n", RocksDB.rocksdbVersion(), b[0], b[1], n);
    }

    /** The native heap's growth per object while n objects made by make are owned, and after they are closed. */
    private static double[] perObject(final Sampler s, final int n, final Supplier<RocksObject> make) {
        final RocksObject[] keep = new RocksObject[n];
        final long h0 = s.nativeHeap();
        for (int i = 0; i < n; i++) {
            keep[i] = make.get();
        }
        final long h1 = s.nativeHeap();
        for (final RocksObject o : keep) {
            o.close();
        }
        final long h2 = s.nativeHeap();
        return new double[] {(h1 - h0) / (double) n, (h2 - h0) / (double) n};
    }

    static ColumnFamilyOptions build(final boolean v430) {
        final ColumnFamilyOptions o = new ColumnFamilyOptions();
        o.setCompressionType(CompressionType.NO_COMPRESSION);
        if (v430) {
            o.setCompactionStyle(CompactionStyle.LEVEL);
        }
        o.setWriteBufferSize(1024 * 1024L);
        if (v430) {
            o.setMaxWriteBufferNumber(2);
        }
        return o;
    }
}
