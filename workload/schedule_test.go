package workload

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

func TestSchedule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sc    scenarios.Scenario
		steps int64
		check func(t *testing.T, sc scenarios.Scenario, ops []Op)
	}{
		{"window: puts, commits, rolls and rebalances", scenario(t, "kafka-20616"), 50, checkWindowSchedule},
		{"window: arms only where a segment expires or a task closes", scenario(t, "kafka-20616", "close_failure_rate=1"), 12, checkWindowArms},
		{"kv: no arms without closes, arms before a rebalance's closes", scenario(t, "restore-peak"), 3, checkKVArms},
		{"migrating: seed_old before each first open", scenario(t, "migrating-store"), 1, checkMigratingSeedOld},
		{"cascade: one failure fails every store of the task", scenario(t, "eos-v2-cascade", "close_failure_rate=0.3"), 60, checkCascadeArms},
		{"init failures: on opens and on puts that create a segment", scenario(t, "kafka-20616", "init_failure_rate=0.5"), 12, checkInitFailures},
		{"no failures drawn at rate 0", scenario(t, "kv-clean"), 5, checkNoFailures},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops := upToStep(t, tc.sc, tc.sc.Seed, tc.steps)
			tc.check(t, tc.sc, ops)
			checkEverySchedule(t, tc.sc, ops)
		})
	}
}

// checkEverySchedule checks what holds in every schedule: versions count up
// from 1 in put order, timestamps within the step, keys in range, stream time
// advancing by step_ms.
func checkEverySchedule(t *testing.T, sc scenarios.Scenario, ops []Op) {
	var ver, st int64
	for _, op := range ops {
		switch op.Kind {
		case KindStep:
			require.Equal(t, st+sc.StepMs, op.StreamTime)
			st = op.StreamTime
		case KindPut:
			ver++
			require.Equal(t, ver, op.Ver)
			require.True(t, op.Ts > st-sc.StepMs && op.Ts <= st, "put %+v outside its step ending %d", op, st)
			require.True(t, strings.HasPrefix(op.Key, "key-"))
			require.Less(t, op.Task, sc.Tasks)
			require.Less(t, op.Store, sc.StoresPerTask)
		}
	}
}

// checkWindowSchedule checks kafka-20616's op counts over 50 steps: puts,
// commits, rolls and rebalances.
func checkWindowSchedule(t *testing.T, sc scenarios.Scenario, ops []Op) {
	require.Equal(t, 50, count(ops, KindStep))
	require.Equal(t, 50*4*2*50, count(ops, KindPut))
	require.Equal(t, 50*4, count(ops, KindCommit))
	require.Equal(t, 2, count(ops, KindRebalance)) // steps 25 and 50
	require.Equal(t, 2*2*2, count(ops, KindClose)) // 2 of 4 tasks, 2 stores each
	require.Equal(t, 4*2+2*2*2, count(ops, KindOpen))
	require.Zero(t, count(ops, KindSeedOld))
	require.Positive(t, count(ops, KindArm))
	require.Equal(t, 4+50*4+2*2, count(ops, KindSamplePoint))
}

// checkWindowArms checks that a window store is armed only where a segment
// expires or a task closes.
func checkWindowArms(t *testing.T, sc scenarios.Scenario, ops []Op) {
	// 60 s segments, 120 s retention, 20 s steps: segment 0 stays live while
	// stream time − retention < 60 s; stream time 180 s (step 9) is the
	// first to expire it, then every 3 steps.
	var armedSteps []int64
	step := int64(0)
	for _, op := range ops {
		switch op.Kind {
		case KindStep:
			step = op.Step
		case KindArm:
			require.Equal(t, spec.FaultTransient, op.Fault)
			if len(armedSteps) == 0 || armedSteps[len(armedSteps)-1] != step {
				armedSteps = append(armedSteps, step)
			}
		}
	}
	require.Equal(t, []int64{9, 12}, armedSteps)
	require.Equal(t, 2*4*2, count(ops, KindArm)) // every store of every task at each
}

// checkKVArms checks that a kv store is armed only before a rebalance's
// closes, and its puts draw no init failures.
func checkKVArms(t *testing.T, sc scenarios.Scenario, ops []Op) {
	require.Equal(t, 3, count(ops, KindRebalance))
	for i, op := range ops {
		if op.Kind == KindArm {
			// an arm is followed by more arms or the task's closes
			j := i + 1
			for ops[j].Kind == KindArm {
				j++
			}
			require.Equal(t, KindClose, ops[j].Kind, "op %d", i)
			require.Equal(t, op.Task, ops[j].Task)
		}
		if op.Kind == KindPut {
			require.Zero(t, op.InitFailures)
		}
	}
}

// checkMigratingSeedOld checks that seed_old comes before each store's first open.
func checkMigratingSeedOld(t *testing.T, sc scenarios.Scenario, ops []Op) {
	n := sc.Tasks * sc.StoresPerTask
	require.Equal(t, n, count(ops, KindSeedOld))
	for i, op := range ops[:3*n] {
		if op.Kind == KindSeedOld {
			require.Equal(t, Op{Kind: KindOpen, Task: op.Task, Store: op.Store}, ops[i+1])
		}
	}
}

// checkCascadeArms checks that under cascade one failure arms every store of
// the task.
func checkCascadeArms(t *testing.T, sc scenarios.Scenario, ops []Op) {
	require.Positive(t, count(ops, KindArm))
	for i := 0; i < len(ops); i++ {
		if ops[i].Kind != KindArm {
			continue
		}
		for s := range sc.StoresPerTask {
			require.Equal(t, Op{Kind: KindArm, Task: ops[i].Task, Store: s, Fault: sc.CloseFailureKind}, ops[i+s])
		}
		i += sc.StoresPerTask - 1
	}
}

// checkInitFailures checks that init failures fall on opens and on puts that
// create a segment, and only there.
func checkInitFailures(t *testing.T, sc scenarios.Scenario, ops []Op) {
	created := map[[2]int]int64{}
	withFailures := 0
	for _, op := range ops {
		if op.Kind != KindPut {
			continue
		}
		k := [2]int{op.Task, op.Store}
		seg := op.Ts / sc.SegmentInterval()
		if last, ok := created[k]; !ok || seg > last {
			created[k] = seg
			if op.InitFailures > 0 {
				withFailures++
			}
			require.LessOrEqual(t, op.InitFailures, InitTries)
		} else {
			require.Zero(t, op.InitFailures, "put %+v creates no segment", op)
		}
	}
	require.Positive(t, withFailures)
	opens := 0
	for _, op := range ops {
		if op.Kind == KindOpen && op.InitFailures > 0 {
			opens++
		}
	}
	require.Positive(t, opens)
}

// checkNoFailures checks that no failure is drawn at rate 0.
func checkNoFailures(t *testing.T, sc scenarios.Scenario, ops []Op) {
	require.Zero(t, count(ops, KindArm))
	for _, op := range ops {
		require.Zero(t, op.InitFailures)
	}
}
