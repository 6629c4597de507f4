package spec

// MinDerivedSegmentIntervalMs is Kafka Streams' floor for a derived window
// segment interval: 60 s.
const MinDerivedSegmentIntervalMs = 60_000

// SegmentIntervalMs is the segment interval of a window store, in ms: explicitMs
// when it is positive, otherwise what Kafka Streams derives from the
// retention period, max(retention/2, 60 s). The one statement of the rule.
func SegmentIntervalMs(retentionMs, explicitMs int64) int64 {
	if explicitMs > 0 {
		return explicitMs
	}
	return max(retentionMs/2, MinDerivedSegmentIntervalMs)
}
