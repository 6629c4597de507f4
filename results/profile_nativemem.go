package results

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
)

// nativeMemIntro is the "where the growth was allocated" section's opening for the JVM engine's profiles.
const nativeMemIntro = "Each kafka-<version> model's Java child ran with async-profiler's nativemem mode (rocksleak run " +
	"--profile): every free, and the mallocs it samples, with their Java and native frames, recorded from the end of " +
	"its warm-up (the first 20%% of its stop condition) until it had closed every store at its end. The table is the " +
	"sampled allocations still unfreed then%s, weighted unsampled, by site: the innermost Java frame outside RocksJava " +
	"and the JDK (Kafka's own, or your RocksDBConfigSetter's line) → the native function that allocated. Per model: " +
	"*<model>/growth.pb.gz* (`go tool pprof -top`), *<model>/unfreed.html* (a flame graph to open in a browser), " +
	"*<model>/unfreed.collapsed*.\n\n"

// profilers reports whether any model has a nativemem profile, and a jemalloc one; tail is what the nativemem
// intro says of its profiles' tail fraction ("" when 0).
func profilers(r *schema.Result) (nativeMem bool, tail string, jemalloc bool) {
	for _, m := range r.Models {
		run := r.Runs[m]
		switch {
		case run == nil || run.Profile == nil:
		case run.Profile.Profiler == schema.ProfilerNativeMem:
			nativeMem = true
			if f := run.Profile.TailFraction; f > 0 {
				tail = fmt.Sprintf(", less those made in the recording's last %g%%", 100*f)
			}
		default:
			jemalloc = true
		}
	}
	return nativeMem, tail, jemalloc
}

// reportNativeMem writes a nativemem profile's figures: its unfreed bytes, the lifecycles they span, and the
// cross-check against the run's native-heap slope.
func reportNativeMem(b *bytes.Buffer, t schema.ProfileTable, hp *schema.HeapProfile) {
	fmt.Fprintf(b, "Unfreed %s allocated over %d lifecycles (%d → %d), %s/lifecycle, "+
		"mallocs sampled every %s; %s, %s.\n", units.FormatSignedBytes(t.TotalBytes), t.Lifecycles, hp.WarmLifecycles,
		hp.EndLifecycles, units.FormatSignedBytes(t.TotalPerLifecycle),
		units.FormatBytes(float64(hp.SamplingIntervalBytes)), hp.File, hp.FlameGraph)
	if hp.RuntimeBytes != 0 && t.Lifecycles > 0 {
		fmt.Fprintf(b, "Left out, as the native heap's signal leaves out the JVM's own mallocs: %s/lifecycle the JVM "+
			"allocated for itself (HotSpot's os::malloc, counted by Native Memory Tracking; in the files).\n",
			units.FormatSignedBytes(float64(hp.RuntimeBytes)/float64(t.Lifecycles)))
	}
	if hp.NativeHeapSlope != 0 {
		fmt.Fprintf(b, "Cross-check: the native heap's slope in this run is %s/lifecycle; the profile's unfreed "+
			"bytes are %s of it.\n", units.FormatSignedBytes(hp.NativeHeapSlope),
			strconv.FormatFloat(hp.SlopeRatio, 'f', 3, 64))
	}
}
