package dev.rocksleak.child;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;

/**
 * Reads the child's own memory, in raw units, as the Go sampler does for the Go child (measure/): RSS and VMS from
 * /proc/self/statm (kept open; {@link #close} closes it), open file descriptors from /proc/self/fd, the C allocator's bytes in use (glibc mallinfo2()
 * uordblks + hblkhd through JNA, or jemalloc's stats.allocated through mallctl when jemalloc is the allocator), and
 * the JVM's own share of RSS from Native Memory Tracking (Java heap committed + class metadata committed + code
 * cache committed; the parent starts the JVM with -XX:NativeMemoryTracking=summary).
 */
final class Sampler implements AutoCloseable {
    /** schema.Unavailable. */
    static final long UNAVAILABLE = -1;

    /** One reading. */
    static final class Reading {
        long rss;
        long vms;
        int fds;
        long nativeHeap = UNAVAILABLE;
        long runtimeBytes = UNAVAILABLE;
        long javaHeapUsed;
        /** The JVM's own malloc'd bytes by NMT (its "malloc:" total; part of nativeHeap), or UNAVAILABLE. */
        long jvmMalloc = UNAVAILABLE;
    }

    private final boolean jemalloc;
    private final long pageSize;
    private final Function mallinfo2;
    private final Function mallctl;
    private final Memory epoch;
    private final Memory sizeOut;
    private final Memory sizeLen;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final MBeanServer mbeans;
    private final ObjectName diagnostic;
    private boolean nmt = true;
    private static final Path FD_DIR = Path.of("/proc/self/fd");
    private boolean fdCountBySize = true;
    private final FileChannel statm;
    private final ByteBuffer statmBuf = ByteBuffer.allocate(256);

    Sampler(final String allocator) {
        this.jemalloc = "jemalloc".equals(allocator);
        final NativeLibrary process = NativeLibrary.getProcess();
        if (jemalloc) {
            Function f;
            try {
                f = process.getFunction("mallctl");
            } catch (final UnsatisfiedLinkError e) {
                throw new IllegalStateException("allocator jemalloc: mallctl is not in the process (is libjemalloc "
                    + "LD_PRELOADed?): " + e.getMessage(), e);
            }
            mallctl = f;
            mallinfo2 = null;
        } else {
            mallinfo2 = NativeLibrary.getInstance("c").getFunction("mallinfo2");
            mallctl = null;
        }
        epoch = new Memory(8);
        epoch.setLong(0, 1);
        sizeOut = new Memory(8);
        sizeLen = new Memory(8);
        pageSize = pageSize();
        try {
            statm = FileChannel.open(Path.of("/proc/self/statm"), StandardOpenOption.READ);
        } catch (final IOException e) {
            throw new IllegalStateException("opening /proc/self/statm: " + e.getMessage(), e);
        }
        mbeans = ManagementFactory.getPlatformMBeanServer();
        try {
            diagnostic = new ObjectName("com.sun.management:type=DiagnosticCommand");
        } catch (final Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * glibc's struct mallinfo2: ten size_t fields. Returned by value, so JNA makes one per call (Structure.newInstance)
     * and would give each a fresh malloc'd Memory, freed only when the collector gets to it: a native allocation per
     * sample, in the very figure the call reads. Each instance here uses {@link #RESULT} instead (autoAllocate), which
     * is allocated once; {@link #nativeHeap} reads its fields before the next call can overwrite them.
     */
    @Structure.FieldOrder({"arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost"})
    public static class MallInfo2 extends Structure implements Structure.ByValue {
        /** The one buffer every call's result is written into (80 bytes, for the process's life). */
        static final Memory RESULT = new Memory(10 * 8);

        public long arena;
        public long ordblks;
        public long smblks;
        public long hblks;
        public long hblkhd;
        public long usmblks;
        public long fsmblks;
        public long uordblks;
        public long fordblks;
        public long keepcost;

        @Override
        protected Memory autoAllocate(final int size) {
            if (size > RESULT.size()) {
                throw new IllegalStateException("struct mallinfo2 is " + size + " bytes here, not " + RESULT.size());
            }
            return RESULT;
        }
    }

    /** The C allocator's bytes in use. */
    long nativeHeap() {
        if (jemalloc) {
            // Refresh the statistics (write the epoch), then read stats.allocated (a size_t). The names are native
            // strings made once: a Java String argument would be copied into a fresh malloc'd buffer per call.
            mallctl.invokeInt(new Object[] {EPOCH, Pointer.NULL, Pointer.NULL, epoch, 8L});
            sizeLen.setLong(0, 8);
            final int rc = mallctl.invokeInt(new Object[] {STATS_ALLOCATED, sizeOut, sizeLen, Pointer.NULL, 0L});
            if (rc != 0) {
                throw new IllegalStateException("mallctl(stats.allocated) = " + rc);
            }
            return sizeOut.getLong(0);
        }
        synchronized (MallInfo2.RESULT) { // one call at a time into the shared result
            final MallInfo2 mi = (MallInfo2) mallinfo2.invoke(MallInfo2.class, new Object[0]);
            return mi.uordblks + mi.hblkhd;
        }
    }

    private static final Memory EPOCH = cString("epoch");
    private static final Memory STATS_ALLOCATED = cString("stats.allocated");

    private static Memory cString(final String s) {
        final Memory m = new Memory(s.length() + 1);
        m.setString(0, s, "US-ASCII");
        return m;
    }

    Reading read(final boolean withRuntime) throws IOException {
        final Reading r = new Reading();
        statm(r);
        r.fds = fds();
        r.nativeHeap = nativeHeap();
        final MemoryUsage heap = memory.getHeapMemoryUsage();
        r.javaHeapUsed = heap.getUsed();
        if (withRuntime) {
            runtime(r);
        }
        return r;
    }

    /**
     * VMS and RSS from /proc/self/statm (its first two fields, in pages), read from position 0 of a file kept open:
     * each read at 0 makes the kernel write the figures afresh (a seq_file), without an open and a close per sample.
     */
    private void statm(final Reading r) throws IOException {
        statmBuf.clear();
        final int n = statm.read(statmBuf, 0); // the line is ~40 bytes: one read has it all
        final long[] pages = new long[2];
        int i = 0;
        for (int f = 0; f < 2; f++) {
            final int start = i;
            for (; i < n && statmBuf.get(i) >= '0' && statmBuf.get(i) <= '9'; i++) {
                pages[f] = pages[f] * 10 + (statmBuf.get(i) - '0');
            }
            if (i == start) {
                throw new IOException("/proc/self/statm: no field " + (f + 1) + " in \""
                    + new String(statmBuf.array(), 0, Math.max(n, 0), StandardCharsets.US_ASCII).trim() + "\"");
            }
            i++; // the space
        }
        r.vms = pages[0] * pageSize;
        r.rss = pages[1] * pageSize;
    }

    /**
     * The open file descriptors. Linux 6.2 and later give their number as the size of /proc/self/fd (one stat);
     * before, that size is 0 and the directory is listed, less the descriptor that lists it.
     */
    int fds() throws IOException {
        final long size = fdCountBySize ? Files.size(FD_DIR) : 0;
        if (size > 0) {
            return (int) size;
        }
        fdCountBySize = false;
        return fdsListed();
    }

    /**
     * The open file descriptors by listing /proc/self/fd, less the one listing them (File.list opens one; a
     * DirectoryStream holds two, a descriptor and its dup, which the count before this one included).
     */
    static int fdsListed() throws IOException {
        final String[] names = FD_DIR.toFile().list();
        if (names == null) {
            throw new IOException("listing " + FD_DIR + " failed");
        }
        return names.length - 1;
    }

    /** Closes /proc/self/statm. Idempotent. */
    @Override
    public void close() throws IOException {
        statm.close();
    }

    private static final Object[] NMT_ARGS = {new String[] {"summary"}};
    private static final String[] NMT_SIGNATURE = {String[].class.getName()};

    /**
     * The JVM's own resident share by Native Memory Tracking: Java heap + Class + Metaspace + Code (code cache),
     * committed, in bytes; and the JVM's own malloc'd bytes (NMT's malloc total, which the C allocator's figure
     * includes). Both UNAVAILABLE when NMT is off. The report is parsed by {@link NmtSummary}.
     */
    void runtime(final Reading r) {
        if (!nmt) {
            return;
        }
        final String out;
        try {
            out = (String) mbeans.invoke(diagnostic, "vmNativeMemory", NMT_ARGS, NMT_SIGNATURE);
        } catch (final Exception e) {
            nmt = false;
            return;
        }
        final NmtSummary summary = NmtSummary.parse(out);
        if (summary.committedKb < 0) {
            nmt = false; // "Native memory tracking is not enabled"
            return;
        }
        r.runtimeBytes = summary.committedKb * 1024;
        if (summary.mallocKb >= 0) {
            r.jvmMalloc = summary.mallocKb * 1024;
        }
    }

    private static long pageSize() {
        try {
            final Function f = NativeLibrary.getInstance("c").getFunction("getpagesize");
            return f.invokeInt(new Object[0]);
        } catch (final UnsatisfiedLinkError e) {
            return 4096;
        }
    }
}
