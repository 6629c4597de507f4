package harness

import (
	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/schema"
)

// ProbeRetention takes the allocator-retention probe (measure.Sampler.ProbeRetention) of a model's child once, after
// its end sample and before its stores close: the same heap as the last sample, then trimmed or purged. The probe
// changes the heap, so it is never taken between samples; a run's series is over when it is taken. A probe that
// fails does not fail the run: its Error says why.
func ProbeRetention(s *measure.Sampler, lifecycles int64) *schema.Retention {
	r, err := s.ProbeRetention()
	r.Lifecycles = lifecycles
	if err != nil {
		r.Error = err.Error()
	}
	return &r
}
