package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/host"
	"github.com/rocksleak/rocksleak/schema"
)

// TestGuardLimit: the default is half the memory budget (the available
// memory, or the cgroup's memory.max when smaller); a given limit is kept;
// a negative one means none.
func TestGuardLimit(t *testing.T) {
	assert.Equal(t, int64(4<<30), DefaultMaxRSS(schema.Machine{MemAvailable: 8 << 30}))
	assert.Equal(t, int64(1<<30), DefaultMaxRSS(schema.Machine{MemAvailable: 8 << 30, CgroupMemoryMax: 2 << 30}))
	assert.Zero(t, DefaultMaxRSS(schema.Machine{}), "unknown budget: no limit")
	assert.Equal(t, int64(64<<20), Guard{MaxRSS: 64 << 20}.limit())
	assert.Zero(t, Guard{MaxRSS: -1}.limit())
	def := Guard{}.limit()
	assert.InEpsilon(t, float64(DefaultMaxRSS(host.Facts())), float64(def), 0.2, "this machine's default")
}
