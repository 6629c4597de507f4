package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The sampler's /proc readings, against this JVM's own process. */
class SamplerTest {
    /** The fd count (by /proc/self/fd's size where the kernel gives it) is the listing's, and follows opens. */
    @Test
    void fdsMatchTheListingAndFollowOpens() throws IOException {
        try (Sampler s = new Sampler("glibc")) {
            final int before = s.fds();
            assertEquals(Sampler.fdsListed(), before, "fds() against the listing of /proc/self/fd");
            final List<FileInputStream> opened = new ArrayList<>();
            try {
                for (int i = 0; i < 7; i++) {
                    opened.add(new FileInputStream("/proc/self/statm"));
                }
                assertEquals(before + 7, s.fds(), "fds() after opening 7 files");
                assertEquals(Sampler.fdsListed(), s.fds(), "fds() against the listing, 7 files later");
            } finally {
                for (final FileInputStream f : opened) {
                    f.close();
                }
            }
            assertEquals(before, s.fds(), "fds() after closing them");
        }
    }

    /** statm is read afresh each time from the file kept open: RSS follows 64 MiB touched between two readings. */
    @Test
    void statmIsReadAfreshEachTime() throws IOException {
        try (Sampler s = new Sampler("glibc")) {
            final Sampler.Reading a = s.read(false);
            assertTrue(a.rss > 0 && a.vms >= a.rss, "rss " + a.rss + ", vms " + a.vms);
            final ByteBuffer touched = ByteBuffer.allocateDirect(64 << 20); // zeroed, so resident
            final Sampler.Reading b = s.read(false);
            assertTrue(b.rss - a.rss >= 48L << 20, "rss grew by " + (b.rss - a.rss) + " after touching 64 MiB");
            assertTrue(b.vms - a.vms >= 64L << 20, "vms grew by " + (b.vms - a.vms) + " after mapping 64 MiB");
            assertEquals(64 << 20, touched.capacity());
        }
    }

    /**
     * Reading the C allocator's figure allocates nothing native per call: mallinfo2's by-value result goes into one
     * buffer, not a fresh malloc'd one per call that only a collection frees (20,000 calls of those grew it by
     * 1,012,160 B here, the collector having freed some on the way). The JIT compiling the loop mallocs too, hence the margin.
     */
    @Test
    void readingTheNativeHeapAllocatesNoNativeMemory() throws IOException {
        try (Sampler s = new Sampler("glibc")) {
            for (int i = 0; i < 2_000; i++) {
                s.nativeHeap(); // warm: compiled before the figures that count
            }
            final long before = s.nativeHeap();
            for (int i = 0; i < 20_000; i++) {
                s.nativeHeap();
            }
            final long grew = s.nativeHeap() - before;
            assertTrue(grew < 20_000L * 80 / 2, "the native heap grew " + grew + " B over 20,000 readings");
        }
    }

    /** close() is idempotent. */
    @Test
    void closeTwice() throws IOException {
        final Sampler s = new Sampler("glibc");
        s.close();
        s.close();
    }
}
