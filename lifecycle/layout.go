package lifecycle

// Layout is the column-family layout of a key-value store.
type Layout string

const (
	// KV: data in "default", metadata in "offsets".
	KV Layout = "kv"
	// Migrating: a timestamped store upgrading from the plain format: old data
	// in "default", new data in "keyValueWithTimestamp", metadata in "offsets".
	// The dual accessor is used while the old CF holds data.
	Migrating Layout = "migrating"
	// Timestamped: a timestamped segment of a DSL window store (Kafka's
	// TimestampedSegments.getOrCreateSegment → new TimestampedSegment, a
	// RocksDBTimestampedStore): the same column families as Migrating
	// ("default", "keyValueWithTimestamp", "offsets"). In regular mode
	// (RocksDBTimestampedStore.openRocksDB with an empty DEFAULT CF) the
	// DEFAULT handle is closed right after open and two handles are held; in
	// upgrade mode (old data in DEFAULT) the dual accessor holds three.
	Timestamped Layout = "timestamped"
	// MigratingWindowHeaders: a segment of Kafka's
	// RocksDBMigratingWindowStoreWithHeaders (openRocksDB): plain values in
	// "default", values with headers in "windowKeyValueWithHeaders", metadata
	// in "offsets". With data in DEFAULT it opens in upgrade mode with
	// new DualColumnFamilyAccessor(offsetsCf, noHeadersColumnFamily,
	// withHeadersColumnFamily, HeadersBytesStore::convertToHeaderFormat, ...);
	// otherwise a SingleColumnFamilyAccessor on the headers CF and
	// noHeadersColumnFamily.close().
	MigratingWindowHeaders Layout = "migrating-window-headers"
)

// threeCF reports whether the layout opens DEFAULT, a new-format data CF and
// offsets (a store that may serve old-format data through the dual accessor).
func (l Layout) threeCF() bool {
	return l == Migrating || l == Timestamped || l == MigratingWindowHeaders
}

// newFormatCF is the new-format data CF of a three-CF layout.
func (l Layout) newFormatCF() string {
	if l == MigratingWindowHeaders {
		return cfWindowHeaders
	}
	return cfNewFormat
}

// converter is the dual accessor's valueConverter for the layout:
// TimestampedBytesStore::convertToTimestampedFormat for the timestamped
// layouts, HeadersBytesStore::convertToHeaderFormat for the window store
// with headers.
func (l Layout) converter() func([]byte) []byte {
	if l == MigratingWindowHeaders {
		return convertToHeaderFormat
	}
	return convertToTimestampedFormat
}

// Column-family names.
const (
	cfDefault   = "default"
	cfNewFormat = "keyValueWithTimestamp"
	// cfWindowHeaders is RocksDBMigratingWindowStoreWithHeaders' new CF.
	cfWindowHeaders = "windowKeyValueWithHeaders"
	cfOffsets       = "offsets"
)
