//go:build cgo

package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/experiment"
	"github.com/rocksleak/rocksleak/schema"
)

// These tests run real scenarios end to end (children, RocksDB, samplers,
// fits, verdicts). They are the short versions; "make reliability" runs the
// same scenarios at many seeds.

func analyse(t *testing.T, name string, sets ...string) *schema.Result {
	t.Helper()
	sc := mustScenario(t, name, sets...)
	res, out, err := experiment.Run(context.Background(), experiment.Options{Scenario: sc, StateRoot: stateRoot(t), Command: "test"})
	require.NoError(t, err)
	require.NotNil(t, out)
	require.Equal(t, schema.StatusComplete, res.Status)
	return res
}

// TestCalibrationRecoversKnownLeak is the estimators' positive control with a
// known answer: 64 KiB per lifecycle, malloc'd and touched in C, recovered
// within ±2% from the native heap and ±10% from RSS against the control run.
func TestCalibrationRecoversKnownLeak(t *testing.T) {
	// Its verdicts read memory; it runs beside one other test at most (sharesTheCores says why that is safe).
	sharesTheCores(t)
	res := analyse(t, "calibration")
	require.Len(t, res.Calibration, 1)
	c := res.Calibration[0]
	const known = 65536.0
	assert.Equal(t, known, c.KnownPerLifecycle)
	assert.InDelta(t, 0, c.NativeHeapError, 0.02, "native heap estimate %.0f B/lifecycle", c.NativeHeap.Value)
	assert.InDelta(t, 0, c.RSSError, 0.10, "RSS estimate %.0f B/lifecycle", c.RSS.Value)
	assert.True(t, c.NativeHeap.Valid && c.NativeHeap.Low < known+0.02*known && known < c.NativeHeap.High+0.02*known,
		"the native interval [%.0f, %.0f] is near the known leak", c.NativeHeap.Low, c.NativeHeap.High)
	syn := res.Runs["fixed+synthetic"].Verdict
	require.NotNil(t, syn.Leak, "%s; flags %v", syn.Reason, syn.Flags)
	assert.True(t, *syn.Leak, "the synthetic leak is called a leak: %s", syn.Reason)
	// The control is not a leak. Its native heap rises ~650 B/lifecycle
	// (the read options fixed leaves, below the floor) and on some seeds
	// that slope changes between the run's halves: the fit flags it and
	// the verdict is honestly inconclusive rather than "no leak" (the old
	// rule ignored the flag). Never a leak either way.
	notALeak(t, res.Runs["fixed"].Verdict)
	// The controlled verdict: the synthetic model against its control.
	var found bool
	for _, c := range res.Controlled {
		if c.Model == "fixed+synthetic" && c.Control == "fixed" && c.Signal == analysis.SignalNativeHeap {
			found = true
			assert.Equal(t, analysis.WordLeak, c.Verdict, c.Reason)
			// Within ±2% of the known leak, as the native heap's own estimate
			// above: the paired interval is narrow (±40 B or so) and centred
			// on what glibc counts, the chunk (65,536 + 8 rounded up to 16 =
			// 65,552 B), so its lower bound may lie above 65,536 itself.
			assert.True(t, c.Difference.Low < known+0.02*known && known < c.Difference.High+0.02*known, c.Reason)
		}
	}
	assert.True(t, found, "a controlled verdict of fixed+synthetic against fixed")
}

// notALeak asserts a negative control's verdict: "no leak", or
// inconclusive with what would settle it; never "leak".
func notALeak(t *testing.T, v *schema.Verdict) {
	t.Helper()
	require.NotNil(t, v)
	if v.Leak == nil {
		assert.NotEmpty(t, v.Settle, "an inconclusive verdict says what would settle it: %s", v.Reason)
		return
	}
	assert.False(t, *v.Leak, "not a leak: %s", v.Reason)
}

// TestKafka20616Verdicts: on the default scenario (RocksJava semantics) the
// leaky model is a leak, its per-lifecycle native cost is of the size of the
// offsets options (~11 KB), the handles its failed closes skip are released
// late by RocksDB.close() (no DB pinned, no task error), and the fixed model
// is not called a leak.
func TestKafka20616Verdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("a full default run takes about a minute")
	}
	// Its verdicts read memory; it runs beside one other test at most (sharesTheCores says why that is safe).
	sharesTheCores(t)
	res := analyse(t, "kafka-20616")
	leaky, fixed := res.Runs["leaky"], res.Runs["fixed"]
	require.NotNil(t, leaky.Verdict.Leak, leaky.Verdict.Reason)
	assert.True(t, *leaky.Verdict.Leak, leaky.Verdict.Reason)
	nat := leaky.Fits[analysis.SignalNativeHeap]
	assert.True(t, nat.PerLifecycle.Valid)
	assert.InDelta(t, 11000, nat.PerLifecycle.Value, 6000, "per-lifecycle native cost %.0f [%.0f, %.0f]",
		nat.PerLifecycle.Value, nat.PerLifecycle.Low, nat.PerLifecycle.High)
	// fixed's native heap is flat; its RSS rises with the full restores from
	// stream time −1, which replay more changelog as the run goes on (with
	// additional_retention_ms=0 its RSS is flat too): the verdict may say the
	// signals disagree, never that fixed leaks.
	assert.False(t, fixed.Verdict.Leak != nil && *fixed.Verdict.Leak, fixed.Verdict.Reason)
	assert.Positive(t, fixed.Restore.SegmentLifecycles, "restores from stream time −1 create and expire segments")
	assert.Zero(t, fixed.TaskErrors)
	assert.Zero(t, fixed.RecordsLost)
	assert.Zero(t, leaky.PinnedDBs, "RocksDB.close() releases skipped handles: no DB stays open")
	assert.Zero(t, leaky.TaskErrors, "no pinned DB holds a path, so no reopen fails")
	assert.Positive(t, leaky.ReleasedLate["cf_handle"], "the failed closes' handles are released late")
	assert.Empty(t, fixed.ReleasedLate, "4.3.1's finally releases every handle in the accessor")
}

// TestNoSafetyNetPinsDBs: the what-if of a binding without RocksJava's
// safety net: the handles skipped by the leaky model's failed closes pin their
// DBs, whose paths then refuse a reopen (task errors); the fixed model pins
// nothing.
func TestNoSafetyNetPinsDBs(t *testing.T) {
	sharesTheCores(t)
	res := analyse(t, "no-safety-net", "lifecycles=300")
	leaky, fixed := res.Runs["leaky"], res.Runs["fixed"]
	assert.Positive(t, leaky.PinnedDBs)
	assert.Equal(t, leaky.FailedCloses, leaky.PinnedDBs, "one pinned DB per failed close")
	assert.Equal(t, leaky.PinnedDBs, leaky.LedgerAtEnd["db"], "the pinned DBs are still live at the end")
	assert.Positive(t, leaky.TaskErrors, "reopening a path held by a pinned DB fails")
	assert.Zero(t, fixed.PinnedDBs)
	assert.Zero(t, fixed.TaskErrors)
}

// TestRestorePeakIsNotALeak: large transient allocations during restores (a
// negative control) are not called a leak.
func TestRestorePeakIsNotALeak(t *testing.T) {
	// Its verdicts read memory; it runs beside one other test at most (sharesTheCores says why that is safe).
	sharesTheCores(t)
	res := analyse(t, "restore-peak")
	run := res.Runs["fixed"]
	assert.Positive(t, run.Restore.Count, "restores happened")
	// Not a leak. Since the equivalence rule (issue 11) "no leak" needs every
	// interval below its floor; a short run whose RSS interval still
	// straddles its floor is honestly inconclusive, so the assertion is the
	// negative control's: never called a leak, and an undecided verdict
	// says what would settle it.
	notALeak(t, run.Verdict)
}
