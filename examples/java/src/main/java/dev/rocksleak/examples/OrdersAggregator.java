package dev.rocksleak.examples;

import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.Random;

import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.WindowStore;

/**
 * A DSL windowed aggregation shaped like examples/orders-aggregator.yaml: orders by customer, counted and summed
 * in 5-minute windows into two window stores per task, each kept 2 hours (hourly segments, 3 live per store).
 * Under Kafka 4.3.0 every segment and store close leaks its offsets column family's options (KAFKA-20616); 4.3.1
 * does not.
 */
public class OrdersAggregator {
    static final String ORDERS = "orders";
    private TopologyTestDriver lastDriver;
    private TestInputTopic<String, Long> orders;

    public Topology topology(final Properties props) {
        final StreamsBuilder b = new StreamsBuilder();
        final KGroupedStream<String, Long> byCustomer =
            b.stream(ORDERS, Consumed.with(Serdes.String(), Serdes.Long())).groupByKey();
        final TimeWindows windows = TimeWindows.ofSizeAndGrace(Duration.ofMinutes(5), Duration.ofMinutes(1));
        byCustomer.windowedBy(windows).count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("orders-count")
            .withRetention(Duration.ofHours(2)));
        byCustomer.windowedBy(windows).reduce(Long::sum, Materialized.<String, Long, WindowStore<Bytes, byte[]>>as(
            "orders-amount").withRetention(Duration.ofHours(2)));
        return b.build(props);
    }

    public int pipe(final TopologyTestDriver driver, final long step, final Instant streamTime, final Random random) {
        if (driver != lastDriver) {
            lastDriver = driver;
            orders = driver.createInputTopic(ORDERS, new StringSerializer(), new LongSerializer());
        }
        for (int i = 0; i < 50; i++) {
            orders.pipeInput("customer-" + random.nextInt(500), (long) random.nextInt(10_000), streamTime);
        }
        return 50;
    }
}
