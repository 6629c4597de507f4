package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/schema"
)

// TestProgressVerdict: the two ways a child shows no progress (task errors
// outpacing lifecycles, no lifecycle for the stated time) stop it, with the
// figures in the reason; a healthy run (fewer errors than lifecycles, a
// burst below MinErrors, a recent lifecycle) and disabled limits do not.
func TestProgressVerdict(t *testing.T) {
	p := Progress{}.resolved()
	sample := func(lc, errs int64) schema.Sample {
		return schema.Sample{Lifecycles: lc, TaskErrors: errs, ElapsedNs: int64(40 * time.Second)}
	}
	inits := func(lc, errs, inits int64) schema.Sample {
		s := sample(lc, errs)
		s.InitFailures = inits
		return s
	}
	for _, tc := range []struct {
		name    string
		p       Progress
		s       schema.Sample
		sinceLC time.Duration
		want    string
	}{
		{"disk full, fixed (issue 31)", p, sample(39, 13_396), time.Second, "13396 task errors and 0 failed inits against 39 lifecycles in 40s, more than 20 per lifecycle"},
		// Issue 44: a disk held full gave 260 task errors and 9,493 failed inits.
		{"failed inits count", p, inits(300, 260, 9_493), time.Second, "260 task errors and 9493 failed inits against 300 lifecycles"},
		{"failed inits below the ratio", p, inits(300, 260, 5_000), time.Second, ""},
		{"errors before any lifecycle", p, sample(0, 557), time.Second, "557 task errors and 0 failed inits against 0 lifecycles"},
		{"stuck without errors", p, sample(12, 0), 2 * time.Minute, "no lifecycle completed for 2m0s (12 lifecycles, 0 task errors and 0 failed inits so far)"},
		{"healthy: no-safety-net's occasional refusal", p, sample(1500, 40), time.Second, ""},
		{"a burst below MinErrors", p, sample(3, 499), time.Second, ""},
		{"a lifecycle a while ago, within the limit", p, sample(3, 0), time.Minute, ""},
		{"limits disabled", Progress{NoLifecycleFor: -1, MaxErrorsPerLifecycle: -1}.resolved(), sample(0, 1e6), time.Hour, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.p.verdict(tc.s, tc.sinceLC)
			if tc.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, tc.want)
			}
		})
	}
}

// TestNoProgressFix names the state directory's trouble from RocksDB's error.
func TestNoProgressFix(t *testing.T) {
	assert.Contains(t, NoProgressFix("IO error: No space left on device: While appending to file: …/MANIFEST-000001", "/s"),
		"the state directory /s is full")
	assert.Contains(t, NoProgressFix("IO error: While open a file for appending: …/LOCK: Read-only file system", "/s"),
		"cannot be written")
	assert.Contains(t, NoProgressFix("Corruption: bad block", "/s"), "fix its cause")
}

// TestNoProgressAdviceReadsTheFaults: a JVM child's first error, capped before
// RocksDB's cause, still gets the full-disk advice when the run met ENOSPC;
// control: without the fault, the generic advice.
func TestNoProgressAdviceReadsTheFaults(t *testing.T) {
	capped := "task 2 store-1: org.apache.kafka.streams.errors.ProcessorStateException: Error opening store store-1.60000 at location …; caused by: org.rocksdb.RocksDBException: While appending to file: /s/rocksleak…"
	assert.Contains(t, noProgressAdvice(capped, []string{schema.FaultENOSPC}, "/s"), "the state directory /s is full")
	assert.Contains(t, noProgressAdvice(capped, []string{schema.FaultEROFS}, "/s"), "cannot be written")
	assert.Contains(t, noProgressAdvice(capped, nil, "/s"), "fix its cause")
}
