package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Protocol test: the changelog file format of Go package changelog, written and read back. */
class ChangelogTest {
    @Test
    void writesTheGoFormatAndReadsItBack(@TempDir final Path dir) throws Exception {
        final Path f = dir.resolve("changelog/task-1/store-0.log");
        try (Changelog c = new Changelog(f)) {
            c.append("key-000001", 20000, 7);
            c.append("k", -1, 1L << 40);
            assertEquals(2, c.size());
            final List<String> got = new ArrayList<>();
            c.replay((off, key, ts, ver) -> got.add(off + " " + key + " " + ts + " " + ver));
            assertEquals(List.of("0 key-000001 20000 7", "1 k -1 1099511627776"), got);
        }
        // uint16 key length, key, int64 ts, int64 ver, little endian
        final byte[] first = HexFormat.of().parseHex("0a00" + "6b65792d303030303031" + "204e000000000000"
            + "0700000000000000");
        final byte[] all = Files.readAllBytes(f);
        final byte[] head = new byte[first.length];
        System.arraycopy(all, 0, head, 0, head.length);
        assertArrayEquals(first, head);
    }
}
