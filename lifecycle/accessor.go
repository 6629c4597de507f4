package lifecycle

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/linxGnu/grocksdb"
)

// cf is one column-family handle with its ledger record.
type cf struct {
	h *grocksdb.ColumnFamilyHandle
	n *Native
}

// accessor mirrors Kafka's column-family accessors: the single accessor (one
// data CF) and the dual accessor (old and new data CF of a migrating store).
// Both write the status marker to the offsets CF and release their handles on
// close, in the way the model prescribes.
type accessor struct {
	db      *grocksdb.DB
	ledger  *Ledger
	wo      *grocksdb.WriteOptions
	ro      *grocksdb.ReadOptions
	offsets cf
	// data is [data] for the single accessor and [old, new] for the dual one.
	data []cf
	// convert turns an old-CF value into the new CF's format (the dual
	// accessor's valueConverter); nil for the single accessor.
	convert func([]byte) []byte
	open    bool
	// throwOnOffsetsPut makes every put to the offsets CF fail inside RocksDB
	// (Kafka's ThrowingOnOffsetsPutDBAccessor); thrownPuts counts them.
	throwOnOffsetsPut bool
	thrownPuts        int64
}

// putOffsets writes one key to the offsets CF: every offsets write (status
// marker, changelog offsets, position) goes through here, as every one goes
// through Kafka's DBAccessor.put.
func (a *accessor) putOffsets(wo *grocksdb.WriteOptions, key, value []byte) error {
	if a.throwOnOffsetsPut {
		bad, n := a.ledger.newWriteOptions("throwing-offsets-write-options")
		defer n.Close()
		bad.DisableWAL(true)
		bad.SetSync(true)
		wo = bad
	}
	err := a.db.PutCF(wo, a.offsets.h, key, value)
	if err != nil && a.throwOnOffsetsPut {
		a.thrownPuts++
	}
	return err
}

func (a *accessor) dual() bool { return len(a.data) == 2 }

// current is the CF new writes go to.
func (a *accessor) current() cf { return a.data[len(a.data)-1] }

func (a *accessor) getCF(h *grocksdb.ColumnFamilyHandle, key []byte) ([]byte, error) {
	s, err := a.db.GetCF(a.ro, h, key)
	if err != nil {
		return nil, err
	}
	defer s.Free()
	if !s.Exists() {
		return nil, nil
	}
	return append([]byte(nil), s.Data()...), nil
}

// openStatus reads the status marker and marks the store open. An unclean
// status (1: the last close did not write 0) is an error under exactly-once.
func (a *accessor) openStatus(exactlyOnce bool) error {
	v, err := a.getCF(a.offsets.h, statusKey)
	if err != nil {
		return err
	}
	if v != nil {
		st, err := decodeLong(v)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		if st == StatusOpen && exactlyOnce {
			return ErrUncleanStatus
		}
	}
	if err := a.putOffsets(a.wo, statusKey, encodeLong(StatusOpen)); err != nil {
		return err
	}
	a.open = true
	return nil
}

func (a *accessor) put(key, value []byte) error {
	if a.dual() {
		// Kafka's dual accessor: the record moves to the new CF.
		if err := a.db.DeleteCF(a.wo, a.data[0].h, key); err != nil {
			return err
		}
	}
	return a.db.PutCF(a.wo, a.current().h, key, value)
}

func (a *accessor) get(key []byte) ([]byte, error) {
	v, err := a.getCF(a.current().h, key)
	if err != nil || v != nil || !a.dual() {
		return v, err
	}
	// Not in the new CF: read the old one, convert it and migrate it, as
	// Kafka's DualColumnFamilyAccessor.get does:
	//
	//	convertedValue = valueConverter.apply(valueInOldFormat);
	//	put(accessor, key, convertedValue); // deletes from old, writes new
	//	return convertedValue;
	old, err := a.getCF(a.data[0].h, key)
	if err != nil || old == nil {
		return old, err
	}
	converted := old
	if a.convert != nil {
		converted = a.convert(old)
	}
	return converted, a.put(key, converted)
}

// noTimestamp is Kafka's ConsumerRecord.NO_TIMESTAMP, the timestamp a plain
// value gets when it is converted to the timestamped format.
const noTimestamp int64 = -1

// convertToTimestampedFormat is Kafka's
// TimestampedBytesStore.convertToTimestampedFormat(plainValue):
// ByteBuffer.allocate(8 + plainValue.length).putLong(NO_TIMESTAMP).put(plainValue),
// an 8-byte big-endian timestamp of −1 before the plain value.
func convertToTimestampedFormat(plain []byte) []byte {
	out := make([]byte, 8, 8+len(plain))
	ts := noTimestamp
	binary.BigEndian.PutUint64(out, uint64(ts))
	return append(out, plain...)
}

// convertToHeaderFormat is Kafka's HeadersBytesStore.convertToHeaderFormat(value):
// the header-embedded format [headersSize(varint)][headersBytes][payload]
// with empty headers, headersSize = varint(0) = [0x00], so [0x00][value].
// (An earlier draft of Kafka's class wrote [0x02][0x00]; the version with the
// documented [0x00] is the one mirrored here.)
func convertToHeaderFormat(value []byte) []byte {
	return append([]byte{0x00}, value...)
}

// writeClosedMarker writes status 0, with the injected fault applied through
// RocksDB itself.
func (a *accessor) writeClosedMarker(fault Fault) error {
	wo := a.wo
	switch fault {
	case Transient:
		// sync=true with the WAL disabled: RocksDB rejects this one call.
		bad, n := a.ledger.newWriteOptions("failing-write-options")
		defer n.Close()
		bad.DisableWAL(true)
		bad.SetSync(true)
		wo = bad
	case Sticky:
		// A malformed batch puts the DB into a failed state; the marker write
		// below then fails with RocksDB's background error.
		b, n := a.ledger.newWriteBatchFrom("malformed-batch", []byte{0, 0, 0})
		_ = a.db.Write(a.wo, b)
		n.Close()
	}
	return a.putOffsets(wo, statusKey, encodeLong(StatusClosed))
}

// closeLeaky is Kafka 4.3.0: marker, then the offsets handle, then the data
// handles, in straight-line code. A failed marker write returns before any
// handle is released.
func (a *accessor) closeLeaky(fault Fault) error {
	if a.open {
		if err := a.writeClosedMarker(fault); err != nil {
			return fmt.Errorf("%w: %v", ErrMarkerWrite, err)
		}
	}
	a.offsets.n.Close()
	for _, d := range a.data {
		d.n.Close()
	}
	return nil
}

// closeFinally is Kafka 4.3.1: the marker write is attempted and every handle
// is released whatever happens. For the single accessor
//
//	try { super.close() } finally { data.close() }
//
// and for the dual one
//
//	try { super.close() } finally { try { old.close() } finally { new.close() } }
//
// where super.close() is try { put status } finally { offsets.close() }.
func (a *accessor) closeFinally(fault Fault) (err error) {
	for i := len(a.data) - 1; i >= 0; i-- {
		defer a.data[i].n.Close() // deferred in reverse: old before new
	}
	defer a.offsets.n.Close()
	if a.open {
		if werr := a.writeClosedMarker(fault); werr != nil {
			return fmt.Errorf("%w: %v", ErrMarkerWrite, werr)
		}
	}
	return nil
}

// handles lists every handle the accessor holds, offsets first.
func (a *accessor) handles() []cf {
	return append([]cf{a.offsets}, a.data...)
}

// Errors a store reports.
var (
	// ErrMarkerWrite: the close-time status write failed (the close went on).
	ErrMarkerWrite = errors.New("close-time status write failed")
	// ErrUncleanStatus: under exactly-once the last close was unclean; Kafka
	// reports "Invalid state during store open" and the caller must wipe the
	// store and restore it from the changelog.
	ErrUncleanStatus = errors.New("invalid state during store open: last close was unclean")
	// ErrInjectedInit: an init failure injected on purpose; it wraps the real
	// RocksDB error that made the open fail.
	ErrInjectedInit = errors.New("injected init failure")
	// ErrClosed: the store is closed.
	ErrClosed = errors.New("store is closed")
)
