package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFewestLifecycles(t *testing.T) {
	cells := map[int64]*cell{
		512:  {found: 10, n: 10, aaCalled: 1, aa: 10}, // every seed, but an A/A pair called
		1024: {found: 9, n: 10, aa: 10},
		2048: {found: 10, n: 10, aa: 10},
	}
	at := func(L int64) *cell { return cells[L] }
	assert.Contains(t, fewestLifecycles("run", []int64{512, 1024, 2048}, at), "from 2048 lifecycles")
	assert.Contains(t, fewestLifecycles("run", []int64{512, 1024}, at), "does not find the leak at every seed")
}
