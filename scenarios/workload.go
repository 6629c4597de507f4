package scenarios

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
)

// workloadFreeFields are the scenario fields that do not change what a
// lifecycle costs: which models run, the seed and the stop condition. Two
// runs that differ only in them measure the same workload.
var workloadFreeFields = []string{"models", "seed", "lifecycles", "duration"}

// WorkloadDigest is the scenario's digest with the run-plan fields (models,
// seed, lifecycles, duration) cleared: two results with the same workload
// digest measured the same workload, so their per-lifecycle and per-record
// slopes and restore times are comparable. The recorded scenario digest
// covers the seed and the model list, so an A/A pair of runs with different
// seeds would never match on it.
func WorkloadDigest(sc Scenario) string {
	sc.Models, sc.Seed, sc.Lifecycles, sc.Duration = nil, 0, 0, 0
	return sc.Digest()
}

// WorkloadDiff names the workload fields that differ between a and b, each
// as "field (a's value vs b's value)", sorted; empty when WorkloadDigest
// agrees.
func WorkloadDiff(a, b Scenario) []string {
	toMap := func(s Scenario) map[string]any {
		m := map[string]any{}
		js, _ := json.Marshal(s)
		_ = json.Unmarshal(js, &m)
		return m
	}
	ma, mb := toMap(a), toMap(b)
	var diff []string
	for k, va := range ma {
		if slices.Contains(workloadFreeFields, k) {
			continue
		}
		if !reflect.DeepEqual(va, mb[k]) {
			diff = append(diff, fmt.Sprintf("%s (%v vs %v)", k, va, mb[k]))
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok && !slices.Contains(workloadFreeFields, k) {
			diff = append(diff, fmt.Sprintf("%s (missing vs %v)", k, mb[k]))
		}
	}
	slices.Sort(diff)
	return diff
}
