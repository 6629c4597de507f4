package dev.rocksleak.child;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.internals.WindowKeySchema;

/**
 * Feeds a slot's changelog to the restore callback its store registered, in restore batches of
 * restore_batch_records, as the restore consumer would. Records are as Kafka's changelog holds them: a window
 * store's key in WindowKeySchema's binary form (sequence number 0), timestamped values as the restore's converter
 * makes them (8-byte timestamp, then the value). A window store's changelog keeps retention +
 * windowstore.changelog.additional.retention.ms of records: older ones are skipped as the broker would have deleted
 * them. restored counts the records handed to the callback, also when a later batch throws.
 */
final class ChangelogFeed {
    private final Job job;
    private final Slot slot;
    private final RecordBatchingStateRestoreCallback batching;
    private final boolean window;
    private final boolean timestamped;
    private final long minTs;
    private final String topic;
    private final List<ConsumerRecord<byte[], byte[]>> batch;
    /** The records restored so far. */
    long restored;

    ChangelogFeed(final Job job, final Slot slot, final RecordBatchingStateRestoreCallback batching) {
        this.job = job;
        this.slot = slot;
        this.batching = batching;
        this.window = job.store.equals("window");
        this.timestamped = !job.store.equals("kv");
        this.minTs = window && slot.maxTs != Long.MIN_VALUE
            ? slot.maxTs - job.retentionMs - job.additionalRetentionMs : Long.MIN_VALUE;
        this.topic = "app-" + slot.name() + "-changelog";
        this.batch = new ArrayList<>(job.restoreBatchRecords);
    }

    /** Replays slot.log (not null) into the callback; a store's exception propagates. */
    void run() throws IOException {
        slot.log.replay((offset, key, ts, ver) -> {
            if (ts < minTs) {
                return;
            }
            final byte[] k = key.getBytes(StandardCharsets.US_ASCII);
            byte[] v = RecordValue.of(job.seed, job.valueBytes, slot.task, slot.idx, key, ts, ver);
            if (timestamped) {
                v = RecordValue.withTimestamp(ts, v);
            }
            final byte[] storeKey = window ? WindowKeySchema.toStoreKeyBinary(Bytes.wrap(k), ts, 0).get() : k;
            batch.add(new ConsumerRecord<>(topic, slot.task, offset, storeKey, v));
            if (batch.size() >= job.restoreBatchRecords) {
                batching.restoreBatch(batch);
                restored += batch.size();
                batch.clear();
            }
        });
        if (!batch.isEmpty()) {
            batching.restoreBatch(batch);
            restored += batch.size();
        }
    }
}
