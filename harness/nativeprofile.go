package harness

import (
	"os"

	"github.com/rocksleak/rocksleak/engine"
)

// nativeProfiler is eng when its children record their own native allocations for --profile (an
// engine.NativeProfiler that dumps no jemalloc heap profiles), else nil.
func nativeProfiler(eng engine.Engine) engine.NativeProfiler {
	if np, ok := eng.(engine.NativeProfiler); ok && !eng.Capabilities().HeapProfile {
		return np
	}
	return nil
}

// preflightProfile checks, before any model runs, what eng's profile needs (engine.NativeProfiler's
// PreflightProfile; nothing for jemalloc's dumps).
func preflightProfile(eng engine.Engine) error {
	if np := nativeProfiler(eng); np != nil {
		return np.PreflightProfile()
	}
	return nil
}

// childProfile prepares a model's profile folder j.Dir for eng's child: when the child records itself
// (nativeProfiler), the job's sampling interval and that engine, which then rewrites the command line and collects
// the profile; else the environment of jemalloc's heap dumps (profileEnv).
func childProfile(j *ProfileJob, eng engine.Engine) (engine.NativeProfiler, []string, error) {
	if np := nativeProfiler(eng); np != nil {
		j.IntervalBytes = np.ProfileIntervalBytes()
		return np, nil, os.MkdirAll(j.Dir, 0o755)
	}
	env, err := profileEnv(*j)
	return nil, env, err
}
