package analysis

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/schema"
)

func TestFDsPerOpenDB(t *testing.T) {
	var ss []schema.Sample
	for i := 0; i < 8; i++ {
		var s schema.Sample
		s.FDs = 20 + 8*i
		s.RocksDB.OpenDBs = i
		ss = append(ss, s)
	}
	assert.InDelta(t, 8.0, FDsPerOpenDB(ss), 1e-9, "8 FDs more per open DB over the first sample")
	assert.True(t, math.IsNaN(FDsPerOpenDB(ss[:3])), "too few samples")
}
