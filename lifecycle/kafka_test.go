package lifecycle_test

import (
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/spec"
)

// flipExpectations inverts every expectation of TestKafkaRegressionTests:
// `go test ./lifecycle -run TestKafkaRegressionTests -rocksleak.flip` must
// fail for every (test, model) pair, which shows that each mirror can fail.
var flipExpectations = flag.Bool("rocksleak.flip", false, "invert the expectations of TestKafkaRegressionTests")

// failures collects the assertions of one mirrored Kafka test that did not
// hold, each with Kafka's own message.
type failures []string

func (f *failures) check(cond bool, msg string) {
	if !cond {
		*f = append(*f, msg)
	}
}

// kafkaTest is one of Kafka's regression tests mirrored against a model.
type kafkaTest struct {
	// name is Kafka's test class and method; variant says what differs from
	// Kafka's own test ("" for none).
	name, variant string
	// catches is the fix without which the test fails; 0 means it holds in
	// every model (it tests a protocol, or it cannot fail: see variant).
	catches spec.Fix
	run     func(t *testing.T, m lifecycle.Model) failures
}

func kafkaTests() []kafkaTest {
	const (
		closeLeak     = "RocksDBStoreCloseLeakTest."
		migratingLeak = "RocksDBMigratingWindowStoreWithHeadersCloseLeakTest."
		accessorTest  = "AbstractColumnFamilyAccessorTest."
	)
	return []kafkaTest{
		{name: closeLeak + "shouldCloseOffsetsCfOptionsOnStoreClose", catches: spec.FixOffsetsOptions,
			run: offsetsOptionsClosed(lifecycle.KV)},
		// Kafka's own assertions (isOwningHandle() == false after
		// rocksDBStore.close()) run after db.close(), whose RocksJava safety
		// net releases the skipped handles: they cannot fail against 4.3.0.
		{name: closeLeak + "shouldCloseColumnFamilyHandlesWhenAccessorPutThrowsDuringClose", variant: "/rocksjava",
			run: handlesReleasedOnThrowingPut(lifecycle.KV, lifecycle.RocksJava, false)},
		// Without the safety net the same assertions catch 4.3.0.
		{name: closeLeak + "shouldCloseColumnFamilyHandlesWhenAccessorPutThrowsDuringClose", variant: "/no-safety-net",
			catches: spec.FixFinally, run: handlesReleasedOnThrowingPut(lifecycle.KV, lifecycle.NoSafetyNet, false)},
		// The assertion that can fail under RocksJava: no handle was still
		// owned between the accessor's close and db.close() (none released late).
		{name: closeLeak + "shouldCloseColumnFamilyHandlesWhenAccessorPutThrowsDuringClose", variant: "/released-by-accessor",
			catches: spec.FixFinally, run: handlesReleasedOnThrowingPut(lifecycle.KV, lifecycle.RocksJava, true)},
		{name: closeLeak + "shouldReleaseDefaultReadOptionsOnStoreClose", catches: spec.FixReadOptions,
			run: readOptionsReleasedOnClose},
		{name: closeLeak + "shouldReleaseDefaultReadOptionsWhenOpenFailsPartway", catches: spec.FixReadOptions,
			run: readOptionsReleasedWhenOpenFailsPartway},
		// Kafka's test guards the fix against a double free; without the fix
		// it does not compile in Kafka, and here it holds in every model.
		{name: closeLeak + "shouldNotThrowWhenDefaultReadOptionsReleasedTwice",
			run: readOptionsReleasedTwice},
		{name: closeLeak + "shouldReleaseDefaultReadOptionsWhenSegmentExpires", catches: spec.FixReadOptions,
			run: readOptionsReleasedWhenSegmentExpires},
		{name: closeLeak + "shouldReleasePhysicalStoreReadOptionsOnlyWhenTheWholeStoreCloses", catches: spec.FixReadOptions,
			run: physicalReadOptionsReleasedOnlyOnClose},
		{name: migratingLeak + "shouldCloseOffsetsCfOptionsOnStoreClose", catches: spec.FixOffsetsOptions,
			run: offsetsOptionsClosed(lifecycle.MigratingWindowHeaders)},
		{name: migratingLeak + "shouldCloseAllDualColumnFamilyHandlesWhenAccessorPutThrowsDuringClose", variant: "/rocksjava",
			run: handlesReleasedOnThrowingPut(lifecycle.MigratingWindowHeaders, lifecycle.RocksJava, false)},
		{name: migratingLeak + "shouldCloseAllDualColumnFamilyHandlesWhenAccessorPutThrowsDuringClose", variant: "/no-safety-net",
			catches: spec.FixFinally, run: handlesReleasedOnThrowingPut(lifecycle.MigratingWindowHeaders, lifecycle.NoSafetyNet, false)},
		{name: migratingLeak + "shouldCloseAllDualColumnFamilyHandlesWhenAccessorPutThrowsDuringClose", variant: "/released-by-accessor",
			catches: spec.FixFinally, run: handlesReleasedOnThrowingPut(lifecycle.MigratingWindowHeaders, lifecycle.RocksJava, true)},
		{name: accessorTest + "shouldOpenClean", run: openClean},
		{name: accessorTest + "shouldThrowOnOpenAfterAUncleanClose", run: throwOnOpenAfterUncleanClose},
		{name: accessorTest + "shouldIgnoreExceptionAfterUncleanClose", run: ignoreExceptionAfterUncleanClose},
	}
}

// TestKafkaRegressionTests runs every mirrored Kafka test against every model:
// it must hold under the models with the fix it names and fail under the
// others (their failed assertions are logged: run with -v to see them).
func TestKafkaRegressionTests(t *testing.T) {
	for _, kt := range kafkaTests() {
		for _, m := range spec.Models() {
			t.Run(kt.name+kt.variant+"/"+m.Name, func(t *testing.T) {
				f := kt.run(t, m)
				wantPass := kt.catches == 0 || m.Has(kt.catches)
				if *flipExpectations {
					wantPass = !wantPass
				}
				if wantPass {
					assert.Empty(t, f, "%s%s must hold under %s", kt.name, kt.variant, m.Name)
					return
				}
				assert.NotEmpty(t, f, "%s%s must fail under %s", kt.name, kt.variant, m.Name)
				t.Logf("fails under %s (no %s fix): %s", m.Name, kt.catches, strings.Join(f, "; "))
			})
		}
	}
}

// offsetsOptionsClosed mirrors shouldCloseOffsetsCfOptionsOnStoreClose: the
// offsets-CF options captured at init own their native handle while the store
// is open and no longer after close.
func offsetsOptionsClosed(layout lifecycle.Layout) func(*testing.T, lifecycle.Model) failures {
	return func(t *testing.T, m lifecycle.Model) (f failures) {
		env := lifecycle.NewEnv(nil)
		s, err := lifecycle.Open(env, lifecycle.Config{Path: filepath.Join(t.TempDir(), "db-name"), Layout: layout, Model: m})
		require.NoError(t, err)
		captured := s.OffsetsOptions()
		require.NotNil(t, captured, "offsetsCFOptions should have been invoked during init")
		f.check(captured.Owning(), "offsets CF options should own its native handle while store is open")
		require.NoError(t, s.Close())
		f.check(!captured.Owning(), "offsets CF options native handle should be released by close()")
		return f
	}
}

// handlesReleasedOnThrowingPut mirrors shouldCloseColumnFamilyHandlesWhenAccessorPutThrowsDuringClose
// (KV: offsets and data handles) and shouldCloseAllDualColumnFamilyHandlesWhenAccessorPutThrowsDuringClose
// (MigratingWindowHeaders, RocksDBMigratingWindowStoreWithHeaders' layout, seeded with old-format data so that the dual accessor is used:
// offsets, old and new handles). Every put to the offsets CF fails inside
// RocksDB (ThrowingOnOffsetsPutDBAccessor). With releasedByAccessor it asserts,
// instead of Kafka's ownership after close, that no handle was released late
// by the DB's close, i.e. that none was still owned between the accessor's
// close and db.close().
func handlesReleasedOnThrowingPut(layout lifecycle.Layout, sem lifecycle.Semantics, releasedByAccessor bool) func(*testing.T, lifecycle.Model) failures {
	return func(t *testing.T, m lifecycle.Model) (f failures) {
		dir := filepath.Join(t.TempDir(), "db-name")
		msgs := []string{"offsets CF handle should still be closed when accessor.put throws",
			"data CF handle should still be closed when super.close() throws"}
		if lifecycle.ThreeCF(layout) {
			seedOldFormat(t, dir) // prepareLegacyDefaultStore
			msgs = []string{"offsets CF handle should still be closed when accessor.put throws",
				"old CF handle should still be closed when super.close() throws",
				"new CF handle should still be closed when oldColumnFamily.close() chain runs"}
		}
		env := lifecycle.NewEnv(nil)
		s, err := lifecycle.Open(env, lifecycle.Config{Path: dir, Layout: layout, Model: m, Semantics: sem})
		require.NoError(t, err)
		require.Equal(t, lifecycle.ThreeCF(layout), s.Dual(), "the dual accessor is used iff the old CF holds data")
		handles := s.Handles()
		require.Len(t, handles, len(msgs))
		if layout == lifecycle.MigratingWindowHeaders {
			// RocksDBMigratingWindowStoreWithHeaders' own column families:
			// offsets, DEFAULT (old) and windowKeyValueWithHeaders (new).
			require.Equal(t, []string{"cf:offsets", "cf:default", "cf:windowKeyValueWithHeaders"},
				[]string{handles[0].Label(), handles[1].Label(), handles[2].Label()})
		}
		for _, h := range handles {
			require.True(t, h.Owning(), "%s owns its native handle while the store is open", h.Label())
		}

		thrownPutCount := s.ThrowOnOffsetsPut()
		err = s.Close()
		require.ErrorIs(t, err, lifecycle.ErrMarkerWrite, "the close went on after the failed put")
		require.Contains(t, err.Error(), "Sync writes has to enable WAL", "the put failed inside RocksDB")

		f.check(thrownPutCount() >= 1, "expected the closedState put on the offsets CF to be invoked and to throw")
		for i, h := range handles {
			if releasedByAccessor {
				f.check(!h.ReleasedLate(), strings.Replace(msgs[i], "should still be closed",
					"should be closed by the accessor, not late by db.close(),", 1))
			} else {
				f.check(!h.Owning(), msgs[i])
			}
		}
		return f
	}
}

// readOptionsReleasedOnClose mirrors shouldReleaseDefaultReadOptionsOnStoreClose.
func readOptionsReleasedOnClose(t *testing.T, m lifecycle.Model) (f failures) {
	env := lifecycle.NewEnv(nil)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: filepath.Join(t.TempDir(), "db-name"), Model: m})
	require.NoError(t, err)
	ro := s.DefaultReadOptions()
	f.check(ro.Owning(), "defaultReadOptions_ should own its native handle while the store is open")
	require.NoError(t, s.Close())
	f.check(!ro.Owning(), "RocksDB.close() never releases defaultReadOptions_, so RocksDBStore must do it")
	return f
}

// readOptionsReleasedWhenOpenFailsPartway mirrors
// shouldReleaseDefaultReadOptionsWhenOpenFailsPartway. Kafka's test throws from
// an openRocksDB override right after the DB opened; here the open fails for
// real after the DB opened: the last close was unclean and exactly-once rejects
// the status ("Invalid state during store open"), so the openDB error-cleanup
// path runs with a live RocksDB to release.
func readOptionsReleasedWhenOpenFailsPartway(t *testing.T, m lifecycle.Model) (f failures) {
	dir := filepath.Join(t.TempDir(), "db-name")
	env := lifecycle.NewEnv(nil)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: dir, Model: lifecycle.AllFixes})
	require.NoError(t, err)
	s.ArmCloseFault(lifecycle.Transient) // leaves status = 1
	require.ErrorIs(t, s.Close(), lifecycle.ErrMarkerWrite)

	var captured *lifecycle.Native
	env.OnDBOpen(func(s *lifecycle.Store) { captured = s.DefaultReadOptions() })
	_, err = lifecycle.Open(env, lifecycle.Config{Path: dir, Model: m, ExactlyOnce: true})
	require.ErrorIs(t, err, lifecycle.ErrUncleanStatus)
	require.NotNil(t, captured, "the database should have been opened before the failure")
	f.check(!captured.Owning(), "the openDB error-cleanup path must release defaultReadOptions_ as well")
	return f
}

// readOptionsReleasedTwice mirrors shouldNotThrowWhenDefaultReadOptionsReleasedTwice:
// releasing again after close is a no-op (a double destroy would crash the
// process), and the ledger counts one release.
func readOptionsReleasedTwice(t *testing.T, m lifecycle.Model) (f failures) {
	env := lifecycle.NewEnv(nil)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: filepath.Join(t.TempDir(), "db-name"), Model: m})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	s.ReleaseDefaultReadOptions()
	s.ReleaseDefaultReadOptions()
	f.check(env.Ledger.Live()[lifecycle.KindReadOptions] == 0, "a second release must be a no-op rather than a crash")
	return f
}

// readOptionsReleasedWhenSegmentExpires mirrors shouldReleaseDefaultReadOptionsWhenSegmentExpires:
// retention 100, segment interval 10; segment 0 is created at stream time 0
// and closed by expiry when stream time reaches 200 (minimum live segment 10).
func readOptionsReleasedWhenSegmentExpires(t *testing.T, m lifecycle.Model) (f failures) {
	env := lifecycle.NewEnv(nil)
	w, err := lifecycle.OpenWindow(env, lifecycle.WindowConfig{Dir: t.TempDir(), Name: "test-segments",
		RetentionMs: 100, SegmentIntervalMs: 10, Segment: lifecycle.Config{Model: m}}, 0)
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Put([]byte("k"), 0, []byte("v")))
	require.Len(t, w.Segments(), 1, "segment 0 should be live at stream time 0")
	ro := w.Segments()[0].DefaultReadOptions()
	f.check(ro.Owning(), "the segment's defaultReadOptions_ owns its native handle while the segment is open")
	require.NoError(t, w.Put([]byte("k"), 200, []byte("v")))
	require.Len(t, w.Segments(), 1, "only segment 20 is live at stream time 200")
	f.check(!ro.Owning(), "expiry-driven segment close must release defaultReadOptions_")
	return f
}

// physicalReadOptionsReleasedOnlyOnClose mirrors
// shouldReleasePhysicalStoreReadOptionsOnlyWhenTheWholeStoreCloses: logical
// segments share one physical RocksDB; expiring one must not release the
// physical DB's read options, closing the segments must.
func physicalReadOptionsReleasedOnlyOnClose(t *testing.T, m lifecycle.Model) (f failures) {
	env := lifecycle.NewEnv(nil)
	v, err := lifecycle.OpenVersionedSegments(env, lifecycle.Config{Path: filepath.Join(t.TempDir(), "logical-segments"), Model: m}, 100, 10)
	require.NoError(t, err)
	ro := v.Physical().DefaultReadOptions()
	f.check(ro.Owning(), "the physical store's defaultReadOptions_ owns its native handle while it is open")
	ok, err := v.GetOrCreateSegmentIfLive(0, 0)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = v.GetOrCreateSegmentIfLive(20, 200) // expires logical segment 0
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []int64{20}, v.Segments())
	f.check(ro.Owning(), "expiring a logical segment must NOT release the shared physical store's defaultReadOptions_")
	require.NoError(t, v.Close())
	f.check(!ro.Owning(), "closing the segments should release the physical store's defaultReadOptions_")
	return f
}

// uncleanStore leaves a store at dir whose status marker says open (1): its
// close-time status write failed.
func uncleanStore(t *testing.T, env *lifecycle.Env, dir string, m lifecycle.Model) {
	t.Helper()
	s, err := lifecycle.Open(env, lifecycle.Config{Path: dir, Model: m})
	require.NoError(t, err)
	s.ArmCloseFault(lifecycle.Transient)
	require.ErrorIs(t, s.Close(), lifecycle.ErrMarkerWrite)
}

// openClean mirrors AbstractColumnFamilyAccessorTest.shouldOpenClean: from a
// closed status (0) the open writes 1, the close writes 0.
func openClean(t *testing.T, m lifecycle.Model) (f failures) {
	dir := filepath.Join(t.TempDir(), "db-name")
	env := lifecycle.NewEnv(nil)
	cfg := lifecycle.Config{Path: dir, Model: m, ExactlyOnce: true}
	s, err := lifecycle.Open(env, cfg)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	st, ok, err := lifecycle.ReadStatus(env, dir)
	require.NoError(t, err)
	require.True(t, ok && st == lifecycle.StatusClosed, "the store starts closed")

	s, err = lifecycle.Open(env, cfg)
	f.check(err == nil, "open from a closed status succeeds")
	if err != nil {
		return f
	}
	st, err = s.Status()
	f.check(err == nil && st == lifecycle.StatusOpen, "open puts status = open")
	require.NoError(t, s.Close())
	st, ok, err = lifecycle.ReadStatus(env, dir)
	f.check(err == nil && ok && st == lifecycle.StatusClosed, "close puts status = closed")
	return f
}

// throwOnOpenAfterUncleanClose mirrors shouldThrowOnOpenAfterAUncleanClose:
// status 1 and ignoreUncleanClose = false (exactly-once) fail the open.
func throwOnOpenAfterUncleanClose(t *testing.T, m lifecycle.Model) (f failures) {
	dir := filepath.Join(t.TempDir(), "db-name")
	env := lifecycle.NewEnv(nil)
	uncleanStore(t, env, dir, m)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: dir, Model: m, ExactlyOnce: true})
	if err == nil {
		_ = s.Close()
	}
	f.check(errors.Is(err, lifecycle.ErrUncleanStatus) && strings.Contains(err.Error(), "invalid state during store open"),
		"Invalid state during store open. Expected state to be either empty or closed")
	return f
}

// ignoreExceptionAfterUncleanClose mirrors shouldIgnoreExceptionAfterUncleanClose:
// status 1 and ignoreUncleanClose = true (no exactly-once) open the store and
// put status = open.
func ignoreExceptionAfterUncleanClose(t *testing.T, m lifecycle.Model) (f failures) {
	dir := filepath.Join(t.TempDir(), "db-name")
	env := lifecycle.NewEnv(nil)
	uncleanStore(t, env, dir, m)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: dir, Model: m, ExactlyOnce: false})
	f.check(err == nil, "the store opens (storeOpen is true)")
	if err != nil {
		return f
	}
	defer s.Close()
	st, err := s.Status()
	f.check(err == nil && st == lifecycle.StatusOpen, "open puts status = open")
	return f
}
