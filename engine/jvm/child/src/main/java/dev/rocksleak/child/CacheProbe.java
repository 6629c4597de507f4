package dev.rocksleak.child;

import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksObject;

/**
 * What one empty RocksJava {@code LRUCache} of a given capacity costs in C memory on the rocksdbjni on the classpath:
 * n caches built, the C allocator's bytes in use read before and after (the Sampler's native heap). It is the known
 * answer of the leaky config setter example (examples/java's LeakySetter builds one such cache per store open and
 * never closes it; docs/your-application.md). Prints one line: {@code <bytes> B per empty LRUCache(<capacity>)}.
 *
 * <p>{@code java -cp build/jvm/rocksleak-child.jar:$(cat build/jvm/classpath-4.3.1.txt) dev.rocksleak.child.CacheProbe
 * [capacity-bytes] [n]}
 */
public final class CacheProbe {
    private CacheProbe() {
    }

    public static void main(final String[] args) {
        RocksDB.loadLibrary();
        final long capacity = args.length > 0 ? Long.parseLong(args[0]) : 16L << 20;
        final int n = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final Sampler s = new Sampler("glibc");
        for (int i = 0; i < 50; i++) {
            new LRUCache(capacity).close(); // warm the allocator and the JNI paths
        }
        final RocksObject[] keep = new RocksObject[n];
        final long h0 = s.nativeHeap();
        for (int i = 0; i < n; i++) {
            keep[i] = new LRUCache(capacity);
        }
        final long h1 = s.nativeHeap();
        for (final RocksObject o : keep) {
            o.close();
        }
        System.out.printf("%.0f B per empty LRUCache(%d) on rocksdbjni %s (%d caches; native heap)%n",
            (h1 - h0) / (double) n, capacity, RocksDB.rocksdbVersion(), n);
    }
}
