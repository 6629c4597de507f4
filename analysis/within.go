package analysis

import (
	"fmt"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// withinConfidence is the confidence of WithinLifecycle's interval for the median growth.
const withinConfidence = 0.95

// WithinLifecycle reads an application run's samples inside its lifecycles (schema.TriggerAfterOpen after a
// task's first step, schema.TriggerBeforeClose after its last, the stores open at both): the code's native heap
// from the one to the other in each sampled lifecycle less what RocksDB's own figures grew by (memtables, table
// readers, block cache: a memtable's next 1 MiB arena block is growth RocksDB accounts for and bounds), the median
// over lifecycles with a distribution-free 95% interval, and the records and steps in between. It is growth within a task's life: an iterator left open until
// its store closes. Whether the close gives it back is the lifecycles' own verdict (the fits leave these samples
// out): growth here with no leak across lifecycles is released at close. Present when the interval's bottom is
// above floor (bytes per lifecycle, the native heap's verdict floor). counts, when not nil, gives the punctuations
// per lifecycle (Kafka's punctuate-total). nil when the run has no such pair.
func WithinLifecycle(samples []schema.Sample, counts *schema.AppCounts, lifecycles int64, floor float64) *schema.WithinLifecycle {
	// RocksDB's own accounted memory (its memtables, table readers and block cache, from Kafka's metrics): growth
	// it accounts for (a memtable's next arena block as records arrive) is told apart from growth it does not.
	rocks := func(s schema.Sample) int64 {
		return s.RocksDB.MemTables + s.RocksDB.TableReaders + s.RocksDB.BlockCache
	}
	var growth, accounted, records, open, cache, mem, readers []float64
	var peak int64
	rolled := 0 // lifecycles whose open RocksDB instances changed between the two samples
	for i, s := range samples {
		if s.Trigger != schema.TriggerBeforeClose {
			continue
		}
		peak = max(peak, s.LiveNatives["iterator"])
		open = append(open, float64(s.RocksDB.OpenDBs))
		cache = append(cache, float64(s.RocksDB.BlockCache))
		mem = append(mem, float64(s.RocksDB.MemTables))
		readers = append(readers, float64(s.RocksDB.TableReaders))
		for j := i - 1; j >= 0; j-- {
			o := samples[j]
			if o.Lifecycles != s.Lifecycles || o.Trigger == schema.TriggerLifecycle || o.Trigger == schema.TriggerStart {
				break
			}
			if o.Trigger == schema.TriggerAfterOpen && o.RocksDB.OpenDBs != s.RocksDB.OpenDBs {
				rolled++
				break
			}
			if o.Trigger == schema.TriggerAfterOpen {
				a := float64(rocks(s) - rocks(o))
				growth = append(growth, float64(s.CodeNativeHeap()-o.CodeNativeHeap())-a)
				accounted = append(accounted, a)
				records = append(records, float64(s.Records-o.Records))
				break
			}
		}
	}
	if len(growth) == 0 && rolled > 0 {
		return &schema.WithinLifecycle{Lifecycles: rolled, Reason: fmt.Sprintf("not read: in each of %d sampled lifecycles "+
			"the RocksDB instances open changed between the first step and the close (window segments rolled), and "+
			"growth within a lifecycle is not told apart from their resident cost; a smaller stream_time_per_step "+
			"keeps the segments of a task's life open together", rolled), OpenIteratorsPeak: peak,
			OpenStores: stats.Median(open), BlockCache: stats.Median(cache), MemTables: stats.Median(mem),
			TableReaders: stats.Median(readers)}
	}
	if len(growth) == 0 {
		return nil
	}
	w := &schema.WithinLifecycle{Lifecycles: len(growth), Growth: stats.Median(growth), Records: stats.Median(records),
		Accounted:         stats.Median(accounted),
		OpenIteratorsPeak: peak, Confidence: withinConfidence, OpenStores: stats.Median(open),
		BlockCache: stats.Median(cache), MemTables: stats.Median(mem), TableReaders: stats.Median(readers)}
	if counts != nil && counts.StepsPerLifecycle > 1 {
		w.Steps = float64(counts.StepsPerLifecycle - 1)
		if lifecycles > 0 && counts.Punctuations > 0 {
			w.Punctuations = float64(counts.Punctuations) / float64(lifecycles) * w.Steps / float64(counts.StepsPerLifecycle)
		}
	}
	lo, hi, ok := stats.MedianInterval(growth, withinConfidence)
	if !ok {
		w.Reason = fmt.Sprintf("%d lifecycles sampled inside: too few for an interval (6 at least)", len(growth))
		return w
	}
	w.Low, w.High = lo, hi
	w.Present = lo > floor
	word := "no growth within a lifecycle above"
	if w.Present {
		word = "growth within a lifecycle above"
	}
	w.Reason = fmt.Sprintf("%s the %s floor: the native heap from after the first step to before the close, beyond "+
		"what RocksDB accounts for (%s: memtables, table readers, block cache), median %s [%s, %s] over %d lifecycles",
		word, units.FormatBytes(floor), units.FormatSignedBytes(w.Accounted), units.FormatSignedBytes(w.Growth),
		units.FormatSignedBytes(lo), units.FormatSignedBytes(hi), len(growth))
	return w
}
