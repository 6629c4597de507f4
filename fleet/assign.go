package fleet

import (
	"errors"
	"fmt"
	"slices"
)

// Assignment is the fleet's sticky task assignment: which instance owns which
// task, and which failure domain each instance is in. Tasks start spread
// round-robin (task k on instance k mod N); instance i is in failure domain
// i mod D (round-robin, as racks are interleaved). The assignment is sticky:
// an instance that restarts keeps its tasks; only the tasks of an instance
// that is gone (Remove) move, each to the live instance owning the fewest
// tasks (the lowest id on a tie), so that no other task moves.
type Assignment struct {
	domains int
	owner   []int // task → instance
	gone    []bool
}

// NewAssignment spreads tasks over instances round-robin and groups the
// instances into domains failure domains.
func NewAssignment(instances, tasks, domains int) (*Assignment, error) {
	switch {
	case instances < 1:
		return nil, fmt.Errorf("instances: %d, need at least 1", instances)
	case tasks < instances:
		return nil, fmt.Errorf("tasks: %d for %d instances; every instance needs a task", tasks, instances)
	case domains < 1 || domains > instances:
		return nil, fmt.Errorf("domains: %d, need 1 to %d (the number of instances)", domains, instances)
	}
	a := &Assignment{domains: domains, owner: make([]int, tasks), gone: make([]bool, instances)}
	for k := range a.owner {
		a.owner[k] = k % instances
	}
	return a, nil
}

// Instances is the number of instances, gone ones included.
func (a *Assignment) Instances() int { return len(a.gone) }

// Domains is the number of failure domains.
func (a *Assignment) Domains() int { return a.domains }

// Domain is instance i's failure domain.
func (a *Assignment) Domain(i int) int { return i % a.domains }

// InDomain lists the live instances of domain d in id order.
func (a *Assignment) InDomain(d int) []int {
	var out []int
	for i := range a.gone {
		if !a.gone[i] && a.Domain(i) == d {
			out = append(out, i)
		}
	}
	return out
}

// Tasks lists the tasks instance i owns, in task order.
func (a *Assignment) Tasks(i int) []int {
	var out []int
	for k, o := range a.owner {
		if o == i {
			out = append(out, k)
		}
	}
	return out
}

// Owner is the instance that owns task k.
func (a *Assignment) Owner(k int) int { return a.owner[k] }

// Live reports whether instance i is still in the fleet.
func (a *Assignment) Live(i int) bool { return i >= 0 && i < len(a.gone) && !a.gone[i] }

// Remove takes instance i out of the fleet and moves its tasks, one at a
// time in task order, each to the live instance that owns the fewest tasks
// (lowest id on a tie). It returns the moves (task → new owner). Removing the
// last live instance is an error: its tasks would have nowhere to go.
func (a *Assignment) Remove(i int) (map[int]int, error) {
	if !a.Live(i) {
		return nil, fmt.Errorf("instance %d is not in the fleet", i)
	}
	live := 0
	for _, g := range a.gone {
		if !g {
			live++
		}
	}
	if live == 1 {
		return nil, errors.New("cannot remove the last instance: its tasks would have no owner")
	}
	a.gone[i] = true
	moves := map[int]int{}
	for _, k := range a.Tasks(i) {
		load := make([]int, len(a.gone))
		for _, o := range a.owner {
			load[o]++
		}
		best := -1
		for j := range a.gone {
			if a.gone[j] {
				continue
			}
			if best < 0 || load[j] < load[best] {
				best = j
			}
		}
		a.owner[k] = best
		moves[k] = best
	}
	return moves, nil
}

// Owners returns a copy of the task → instance map.
func (a *Assignment) Owners() []int { return slices.Clone(a.owner) }
