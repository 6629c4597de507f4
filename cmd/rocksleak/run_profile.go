//go:build cgo

package main

import (
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

// checkProfileEvery refuses --profile-every for a kafka-<version> model before any work: the JVM engine's profile
// (async-profiler's nativemem mode) is one recording from the warm-up to the end, with no dumps between.
func checkProfileEvery(o runOptions, models []string) error {
	if o.profileEvery <= 0 {
		return nil
	}
	for _, m := range models {
		if rn, err := spec.ParseRunName(m, scenarios.ModelNames()); err == nil && rn.JVM() {
			return usagef("--profile-every: %s runs in the JVM engine, whose profile is one recording from the warm-up to the end (drop --profile-every)", m)
		}
	}
	return nil
}
