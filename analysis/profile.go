package analysis

import "github.com/rocksleak/rocksleak/schema"

// crossCheckProfile fills a nativemem profile's cross-check with the run's native-heap slope (the fit with failed
// closes at the run's rate, nat): the slope per lifecycle and the profile's unfreed bytes per lifecycle over it. A
// jemalloc profile is compared at its dumps instead (results.ProfileAgreement) and is left as it is.
func crossCheckProfile(run *schema.Run, nat schema.SignalFit) {
	p := run.Profile
	if p == nil || p.Profiler != schema.ProfilerNativeMem || p.Lifecycles <= 0 || p.Error != "" {
		return
	}
	p.NativeHeapSlope = nat.PerLifecycle.Value
	p.SlopeRatio = 0
	if p.NativeHeapSlope != 0 {
		p.SlopeRatio = float64(p.GrowthBytes) / float64(p.Lifecycles) / p.NativeHeapSlope
	}
}
