package analysis

import (
	"math"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// FDsPerOpenDB is what one open store instance holds in open file
// descriptors at steady state, measured as analysis's resident cost is: the
// median over the second half of the samples of (FDs − FDs at the first
// sample) / open DBs. NaN when no sample has an open DB.
func FDsPerOpenDB(samples []schema.Sample) float64 {
	if len(samples) < 4 {
		return math.NaN()
	}
	base := samples[0]
	var per []float64
	for _, s := range samples[len(samples)/2:] {
		if s.RocksDB.OpenDBs > 0 {
			per = append(per, float64(s.FDs-base.FDs)/float64(s.RocksDB.OpenDBs))
		}
	}
	if len(per) == 0 {
		return math.NaN()
	}
	return stats.Median(per)
}
