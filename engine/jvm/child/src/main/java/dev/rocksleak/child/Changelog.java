package dev.rocksleak.child;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One store's changelog partition, kept in a file outside the child's memory, in the format of the Go harness's
 * changelog (harness/fleet_changelog.go): per record a key length (uint16), the key bytes, the timestamp (int64) and
 * the version (int64), little endian. The value is not stored: it is RecordValue of those. Records are appended on
 * each successful put and read back, in order, in restore batches; nothing of it is held in memory but the write
 * buffer and one batch.
 */
final class Changelog implements AutoCloseable {
    /** One record as read back. */
    record Rec(String key, long ts, long ver) {
    }

    private final Path path;
    private OutputStream out;
    private long size; // records appended
    private final byte[] buf = new byte[18];

    Changelog(final Path path) throws IOException {
        this.path = path;
        Files.createDirectories(path.getParent());
        this.out = new BufferedOutputStream(Files.newOutputStream(path, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND, StandardOpenOption.WRITE), 64 << 10);
    }

    /** Records appended so far: the end offset. */
    long size() {
        return size;
    }

    void append(final String key, final long ts, final long ver) throws IOException {
        final byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        if (k.length > 0xffff) {
            throw new IOException("changelog: key of " + k.length + " bytes is too long");
        }
        out.write(k.length & 0xff);
        out.write(k.length >>> 8);
        out.write(k);
        putLE(buf, 0, ts);
        putLE(buf, 8, ver);
        out.write(buf, 0, 16);
        size++;
    }

    /** Visits every record in order; the file is flushed first. */
    void replay(final Visitor v) throws IOException {
        out.flush();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(path), 64 << 10)) {
            final DataInputStream d = new DataInputStream(in);
            final byte[] b = new byte[16];
            long offset = 0;
            while (true) {
                final int lo = in.read();
                if (lo < 0) {
                    return;
                }
                final int hi = in.read();
                if (hi < 0) {
                    throw new EOFException(path + ": record cut short");
                }
                final byte[] k = new byte[lo | (hi << 8)];
                d.readFully(k);
                d.readFully(b);
                v.record(offset++, new String(k, StandardCharsets.US_ASCII), getLE(b, 0), getLE(b, 8));
            }
        }
    }

    interface Visitor {
        void record(long offset, String key, long ts, long ver) throws IOException;
    }

    @Override
    public void close() throws IOException {
        if (out != null) {
            out.close();
            out = null;
        }
    }

    static void putLE(final byte[] b, final int off, final long v) {
        for (int i = 0; i < 8; i++) {
            b[off + i] = (byte) (v >>> (8 * i));
        }
    }

    static long getLE(final byte[] b, final int off) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[off + i] & 0xffL);
        }
        return v;
    }
}
