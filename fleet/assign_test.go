package fleet

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAssignmentSpreadsRoundRobinAndGroupsDomainsByModulo(t *testing.T) {
	a, err := NewAssignment(4, 10, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 4, 8}, a.Tasks(0))
	assert.Equal(t, []int{1, 5, 9}, a.Tasks(1))
	assert.Equal(t, []int{2, 6}, a.Tasks(2))
	assert.Equal(t, []int{3, 7}, a.Tasks(3))
	assert.Equal(t, []int{0, 2}, a.InDomain(0))
	assert.Equal(t, []int{1, 3}, a.InDomain(1))
	for i := range 4 {
		assert.Equal(t, i%2, a.Domain(i))
	}
}

// TestAssignmentIsSticky: removing an instance moves its tasks and no
// other; each goes to the least-loaded live instance. Restarting is not
// removing: nothing in the assignment changes.
func TestAssignmentIsSticky(t *testing.T) {
	a, err := NewAssignment(4, 10, 2)
	require.NoError(t, err)
	before := a.Owners()
	moves, err := a.Remove(1)
	require.NoError(t, err)
	assert.Equal(t, map[int]int{1: 2, 5: 3, 9: 0}, moves, "tasks 1, 5, 9 go to the least-loaded instances in turn (2, 3, then 0 by lowest id)")
	after := a.Owners()
	for k, o := range before {
		if o != 1 {
			assert.Equal(t, o, after[k], "task %d of a live instance stays", k)
		}
	}
	assert.False(t, a.Live(1))
	assert.Empty(t, a.Tasks(1))
	assert.Equal(t, []int{3}, a.InDomain(1), "a gone instance leaves its domain")

	_, err = a.Remove(1)
	assert.Error(t, err, "an instance goes once")
	_, err = a.Remove(0)
	require.NoError(t, err)
	_, err = a.Remove(2)
	require.NoError(t, err)
	_, err = a.Remove(3)
	assert.ErrorContains(t, err, "last instance")
	assert.Len(t, a.Tasks(3), 10, "the last instance owns every task")
}

func TestAssignmentRejects(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		instances, tasks, domains int
		want                      string
	}{
		{"no instance", 0, 4, 1, "instances"},
		{"fewer tasks than instances", 5, 4, 1, "tasks"},
		{"no domain", 2, 4, 0, "domains"},
		{"more domains than instances", 2, 4, 3, "domains"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAssignment(tc.instances, tc.tasks, tc.domains)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestPlanCanaryThenDomainsInWaves(t *testing.T) {
	a, err := NewAssignment(5, 8, 2)
	require.NoError(t, err)
	var got []string
	var restarts [][]int
	for _, p := range plan(a, 2) {
		got = append(got, p.name)
		restarts = append(restarts, p.restart)
	}
	assert.Equal(t, []string{"baseline", "canary", "expand-domain-0", "expand-domain-1", "final"}, got)
	assert.Equal(t, [][]int{nil, {0}, {2, 4}, {1, 3}, nil}, restarts)

	got = nil
	for _, p := range plan(a, 1) {
		got = append(got, p.name)
	}
	assert.Equal(t, []string{"baseline", "canary", "expand-domain-0-wave-1", "expand-domain-0-wave-2",
		"expand-domain-1-wave-1", "expand-domain-1-wave-2", "final"}, got)
}
