package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// lifecyclePair is one sampled lifecycle: after its first step and before its close, growth bytes apart (of which
// accounted RocksDB's memtables), with dbs RocksDB instances open at the first and dbs2 at the second.
func lifecyclePair(lc int64, growth, accounted int64, dbs, dbs2 int) []schema.Sample {
	open := schema.Sample{Trigger: schema.TriggerAfterOpen, Lifecycles: lc, Records: lc * 100}
	open.NativeHeap = 10 << 20
	open.RocksDB.OpenDBs = dbs
	closeS := schema.Sample{Trigger: schema.TriggerBeforeClose, Lifecycles: lc, Records: lc*100 + 80}
	closeS.NativeHeap = open.NativeHeap + growth
	closeS.RocksDB.MemTables = accounted
	closeS.RocksDB.OpenDBs = dbs2
	after := schema.Sample{Trigger: schema.TriggerLifecycle, Lifecycles: lc + 1}
	return []schema.Sample{open, closeS, after}
}

func TestWithinLifecycle(t *testing.T) {
	counts := &schema.AppCounts{StepsPerLifecycle: 5, Punctuations: 50}
	for _, tc := range []struct {
		name              string
		growth, accounted int64
		dbs2              int
		present           bool
		read              bool
	}{
		{"an iterator left open", 64 << 10, 0, 1, true, true},
		{"a memtable's next arena block, accounted", 1 << 20, 1 << 20, 1, false, true},
		{"nothing", 100, 0, 1, false, true},
		{"a segment rolled", 2 << 20, 0, 2, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ss []schema.Sample
			for lc := int64(0); lc < 10; lc++ {
				ss = append(ss, lifecyclePair(lc, tc.growth+lc, tc.accounted, 1, tc.dbs2)...)
			}
			w := WithinLifecycle(ss, counts, 10, DefaultFloors().NativeHeap)
			require.NotNil(t, w)
			assert.Equal(t, tc.present, w.Present, w.Reason)
			if !tc.read {
				assert.Contains(t, w.Reason, "not read")
				return
			}
			assert.Equal(t, 10, w.Lifecycles)
			assert.InDelta(t, float64(tc.growth-tc.accounted), w.Growth, 10)
			assert.Equal(t, 4.0, w.Steps)
			assert.Equal(t, 4.0, w.Punctuations, "5 punctuations per lifecycle, 4 of its 5 steps between the samples")
			assert.Equal(t, 80.0, w.Records)
		})
	}
	assert.Nil(t, WithinLifecycle([]schema.Sample{{Trigger: schema.TriggerLifecycle}}, nil, 1, 2048), "no pair: nil")
}
